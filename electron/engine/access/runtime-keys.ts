import { createHash } from 'node:crypto';
import { type Application, type ApplicationInput, keyLast4, type ApplicationStore } from './application-store';
import { applicationTypeHolding } from './permissions';

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
export type RuntimeKeyOf = (applicationId: string, user: RuntimeKeyUser) => Promise<string | null>;

/**
 * The runtime key: clients' keys are kept only as hashes, so code transforms (and reactors) get a key of their
 * application that the engine makes and keeps sealed, as it keeps the workbench's. Revoking it (as any key) makes the
 * next call that needs one make another.
 */
export function runtimeKeys(applications: ApplicationStore, made: (key: MadeRuntimeKey, user: RuntimeKeyUser) => void): RuntimeKeyOf {
  return async (applicationId, user) => {
    if (!applications.get(applicationId)) return null;
    const kept = await applications.keptKey(applicationId, 'runtime');
    if (kept.made) made({ application_id: applicationId, key_id: kept.id, key_last4: keyLast4(kept.key) }, user);
    return kept.key;
  };
}

/** The code a call key is made for: a proxy's transform, by its place in the proxy (`request_transforms[0]`). */
export interface CallKeyUser extends RuntimeKeyUser {
  place: string;
  /** What the code belongs to; a proxy when not said. */
  kind?: 'proxy' | 'reactor';
}

/** A key made for one call of node22 code; `revoke` deletes it (again is harmless). */
export interface CallKey {
  key: string;
  revoke(): Promise<void>;
}

/** A key for one call of `user`'s code holding exactly `permissions` (validated when the code was saved). */
export type CallKeyOf = (user: CallKeyUser, permissions: readonly string[]) => Promise<CallKey>;

/** The engine's application for one transform: the same id for the same proxy and place, across restarts. */
function callKeyApplicationId(user: CallKeyUser): string {
  const hex = createHash('sha256').update(`node22-runtime:${user.id}:${user.place}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Deletes the applications kept for these users' keys (their proxy is gone), with any key a crash left behind. */
export async function dropCallKeyApplications(applications: ApplicationStore, users: readonly CallKeyUser[]): Promise<void> {
  for (const user of users) {
    const id = callKeyApplicationId(user);
    if (applications.get(id)) await applications.delete(id, null);
  }
}

const sameAccess = (app: Application, wanted: ApplicationInput) =>
  app.type === wanted.type && app.rules.length === 0 && app.permissions.length === wanted.permissions.length && wanted.permissions.every((p) => app.permissions.includes(p));

/**
 * node22 code's `applicationOptions.apiKey` (vendor-surfaces.md §2.5): keys belong to applications, so the engine keeps
 * a private (or management) application per transform whose bare permissions are exactly `runtime.permissions`, and
 * makes a key of it for each call, deleted when the call ends. Before each key the application is checked and, if its
 * access differs (the proxy changed, or someone edited it), set back, so a key never holds more; `changed` hears of
 * each such making or setting (once per change of permissions, not per call).
 */
export function callKeys(applications: ApplicationStore, changed: (application: Application, user: CallKeyUser) => void): CallKeyOf {
  return async (user, permissions) => {
    const id = callKeyApplicationId(user);
    const wanted: ApplicationInput = {
      name: `node22 runtime of ${user.kind ?? 'proxy'} ${user.name} (${user.id}) ${user.place}`,
      type: applicationTypeHolding(permissions)!,
      permissions: [...new Set(permissions)],
      rules: [],
    };
    const app = applications.get(id);
    if (!app || !sameAccess(app, wanted)) {
      changed(app ? await applications.update(id, wanted, null, null) : (await applications.create(wanted, null, { create: false }, null, id)).application, user);
    }
    const made = await applications.createKey(id, null, null);
    let revoked = false;
    return {
      key: made.key,
      async revoke() {
        if (revoked) return;
        revoked = true;
        // Someone may have revoked it (or deleted the application) while the call ran: gone is what was wanted.
        if (applications.get(id)?.keys.some((k) => k.id === made.id)) await applications.deleteKey(id, made.id, null);
      },
    };
  };
}
