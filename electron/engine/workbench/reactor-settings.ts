import { workbenchCause } from '../people/acting-person';
import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { ReactorView } from '../../../shared/workbench/reactor-contract';
import type { StoredReactor } from '../reactors/reactor-model';
import { acceptedReactor, deleteReactor, dependencyFailure, type ReactorRouteDeps } from '../reactors/reactor-routes';

/** Who a reactor the workbench's user saved was created or changed by, where the API names the calling application. */
const WORKBENCH_AUTHOR = 'workbench';

/** A reactor as the page shows it: the live definition, and why a change asked for since is waiting. */
function viewOf(reactor: StoredReactor): ReactorView {
  const { id, name, code, configuration, application_id, runtime, state, created_at, modified_at } = reactor;
  return { id, name, code, configuration, application_id, runtime, state, waiting: reactor.requested?.error_message ?? null, file: reactor.file?.path ?? null, created_at, modified_at };
}

export type ReactorSettingsDeps = Pick<ReactorRouteDeps, 'reactors' | 'applications' | 'codeSaved' | 'dependenciesDir'>;

/**
 * Reactors as the Reactors page manages them: the same store and the same validation as /reactors (acceptedReactor),
 * acting for the workbench's user, so no management key is needed.
 */
export function reactorSettings(deps: ReactorSettingsDeps) {
  const { reactors } = deps;
  /** A new reactor (`id` null) or a replaced one, checked as the routes check it, saved live or waiting. */
  function save(id: string | null, definition: Omit<Request<'updateReactor'>, 'id'>): ReactorView {
    if (id !== null) reactors.requireWritable(id);
    const accepted = acceptedReactor(definition, deps);
    const failure = dependencyFailure(accepted, deps.dependenciesDir);
    return viewOf(id === null ? reactors.create(accepted, WORKBENCH_AUTHOR, failure, workbenchCause()) : reactors.replace(id, accepted, WORKBENCH_AUTHOR, failure, workbenchCause()));
  }
  return {
    list: (): ReactorView[] => reactors.list([], undefined).map(viewOf),
    create: (definition: Request<'createReactor'>) => save(null, definition),
    update: ({ id, ...definition }: Request<'updateReactor'>) => save(id, definition),
    async remove({ id }: Request<'deleteReactor'>): Promise<SentReply<'deleteReactor'>> {
      await deleteReactor(deps, id, workbenchCause());
      return { deleted: true };
    },
    /** The reactor's name for History's sentences; undefined when there is none by that id. */
    nameOf: (id: string): string | undefined => reactors.list([id], undefined)[0]?.name,
  };
}

export type ReactorSettings = ReturnType<typeof reactorSettings>;
