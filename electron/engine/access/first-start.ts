import { type ApplicationStore, type Created, countingApplications, type NewApiKey } from './application-store';
import { MANAGEMENT_PERMISSIONS, TOKEN_INTENT_PERMISSIONS, TOKEN_PERMISSIONS } from './permissions';
import { afterRun, type Unit } from '../storage/unit';

/** Keys made on the first start of an empty store: shown once, never stored in plaintext. */
export interface BootstrapKeys {
  management: NewApiKey & { application_id: string };
  private: NewApiKey & { application_id: string };
}

/**
 * The unit making an empty store's first two applications, a management tool and a back end, each with a key; null
 * when it is not empty. Its caller hands `made` to `ApplicationStore.created` once committed.
 */
export function* bootstrapping(applications: ApplicationStore): Unit<{ keys: BootstrapKeys; made: Created[] } | null> {
  if ((yield* countingApplications()) > 0) return null;
  const made: Created[] = [];
  function* make(name: string, type: 'management' | 'private', permissions: string[]) {
    const created = yield* applications.creating({ name, type, permissions, rules: [] }, null, { create: true }, null);
    made.push(created);
    return { ...created.key!, application_id: created.held.application.id };
  }
  const keys = {
    management: yield* make('Tokenbench management', 'management', [...MANAGEMENT_PERMISSIONS]),
    // A back end reads and deletes the intents its browsers create, and converts them (token:create).
    private: yield* make('Tokenbench backend', 'private', [...TOKEN_PERMISSIONS, ...TOKEN_INTENT_PERMISSIONS]),
  };
  return { keys, made };
}

/** The first start: an empty store's first two applications (bootstrapping), in one transaction. */
export async function bootstrap(applications: ApplicationStore): Promise<BootstrapKeys | null> {
  return afterRun(applications.units.run(() => bootstrapping(applications)), (first) => {
    if (!first) return null;
    applications.created(first.made);
    return first.keys;
  });
}
