/**
 * A reactor as the engine keeps it and as /reactors answers it (docs/api.md, Reactors; vendor-surfaces.md §3.3).
 */
import type { Application } from '../access/application-store';
import type { RuntimeOptions } from '../code-runtime';
import type { ResolvedSecrets } from '../server/log-headers';

/** What a client sets: the body of POST and PUT, and what PATCH merges into. */
export interface ReactorDefinition {
  name: string;
  code: string;
  configuration: Record<string, string>;
  application_id: string | null;
  /** As given; null when the reactor was saved without one (node-bt). */
  runtime: RuntimeOptions | null;
}

/** A change asked for that is not live, and why: node22 dependencies not found (as a proxy's, §1.4). */
export interface RequestedReactorChange {
  definition: ReactorDefinition;
  error_code: 'dependency_unavailable';
  error_message: string;
  error_details: Record<string, string[]>;
}

export interface StoredReactor extends ReactorDefinition {
  id: string;
  state: 'active' | 'failed';
  requested: RequestedReactorChange | null;
  /** Whether the reactor has a version that runs: one saved `failed` from the start answers 409 until it has. */
  live: boolean;
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  /** Set for a reactor loaded from a file of the proxies folder: held in memory only, changed only by its file. */
  file?: ReactorFileSource;
}

/** Where a file reactor comes from, and how a react runs it. */
export interface ReactorFileSource {
  /** The file's path inside the proxies folder, with `/` between folders: `cards/tokenize.reactor.json`. */
  path: string;
  folder: string;
  /**
   * The configuration one react runs with, its `${secret:NAME}` references put in (a missing secret is that react's
   * problem), and what they resolved to, which the react's trace writes back as references.
   */
  atCall(): { configuration: Record<string, string>; secrets: ResolvedSecrets | null };
}

/** The runtime a call uses: node-bt when none was given. */
export const runtimeOf = (reactor: ReactorDefinition): RuntimeOptions => reactor.runtime ?? { image: 'node-bt' };

/** The reactor object of the wire API (vendor §3.3); its application as GET /applications/{id} shows it. */
export function reactorView(reactor: StoredReactor, tenantId: string, application: Application | undefined) {
  const requested = reactor.requested && {
    reactor: { code: reactor.requested.definition.code, runtime: reactor.requested.definition.runtime, configuration: reactor.requested.definition.configuration },
    error_code: reactor.requested.error_code,
    error_message: reactor.requested.error_message,
    error_details: reactor.requested.error_details,
  };
  return {
    id: reactor.id,
    tenant_id: tenantId,
    name: reactor.name,
    code: reactor.code,
    configuration: reactor.configuration,
    application: application ?? null,
    runtime: reactor.runtime,
    state: reactor.state,
    requested,
    formula: null,
    created_by: reactor.created_by,
    created_at: reactor.created_at,
    ...(reactor.modified_at !== null && { modified_by: reactor.modified_by, modified_at: reactor.modified_at }),
  };
}

/** The fields a client set, as PATCH merges into them. */
export function definitionOf(reactor: StoredReactor): ReactorDefinition {
  const { name, code, configuration, application_id, runtime } = reactor;
  return { name, code, configuration, application_id, runtime };
}
