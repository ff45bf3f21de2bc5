import { keyLast4, type ApplicationStore } from './application-store';

/** A runtime key the engine has just made: by its application, id and last four, never its secret. */
export interface MadeRuntimeKey {
  application_id: string;
  key_id: string;
  key_last4: string;
}

/** What the code asked for the key for (a proxy's transform), to name it where the key's making is recorded. */
export interface RuntimeKeyUser {
  id: string;
  name: string;
}

/**
 * The key the code of `user` calls this engine with, as its application, made (and reported) on first need; null when
 * that application no longer exists.
 */
export type RuntimeKeyOf = (applicationId: string, user: RuntimeKeyUser) => string | null;

/**
 * The runtime key: clients' keys are kept only as hashes, so code transforms (and reactors) get a key of their
 * application that the engine makes and keeps sealed, as it keeps the workbench's. Revoking it (as any key) makes the
 * next call that needs one make another.
 */
export function runtimeKeys(applications: ApplicationStore, made: (key: MadeRuntimeKey, user: RuntimeKeyUser) => void): RuntimeKeyOf {
  return (applicationId, user) => {
    if (!applications.get(applicationId)) return null;
    const kept = applications.keptKey(applicationId, 'runtime');
    if (kept.made) made({ application_id: applicationId, key_id: kept.id, key_last4: keyLast4(kept.key) }, user);
    return kept.key;
  };
}
