import { CLIENT_KEY_ALGORITHM, type ClientKeyInfo, type SessionInfo } from '../../../shared/workbench/client-access-contract';
import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { ApplicationStore } from '../access/application-store';
import type { SessionEntry, SessionStore } from '../access/session-store';
import type { ClientKeyEntry, ClientKeyStore } from '../encryption-keys/client-key-store';
import { createKeyRequest } from '../encryption-keys/key-routes';
import { parseWith } from '../server/validation';

/**
 * Client encryption keys and sessions as Settings shows them: the same stores and checks as /keys and /sessions,
 * acting for the workbench's user, so no management key is needed. Applications are named where they still exist.
 */
export function clientAccess(keys: ClientKeyStore, sessions: SessionStore, applications: ApplicationStore) {
  const named = (id: string) => ({ id, name: applications.get(id)?.name ?? null });
  const keyInfo = (entry: ClientKeyEntry): ClientKeyInfo => ({
    ...entry,
    algorithm: CLIENT_KEY_ALGORITHM,
    created_by: entry.created_by === null ? null : named(entry.created_by),
  });
  const sessionInfo = (entry: SessionEntry): SessionInfo => ({
    id: entry.id,
    application: { id: entry.application_id, name: applications.get(entry.application_id)?.name ?? entry.application_id },
    created_at: entry.created_at,
    expires_at: entry.expires_at,
    authorization:
      entry.authorized_at === null || entry.authorized_by === null
        ? null
        : { at: entry.authorized_at, by: named(entry.authorized_by), permissions: entry.permissions ?? [], rules: entry.rules ?? [] },
  });
  return {
    listKeys: (): ClientKeyInfo[] => keys.entries().map(keyInfo),
    createKey(request: Request<'createClientKey'>): SentReply<'createClientKey'> {
      const { expires_at } = parseWith(createKeyRequest, request);
      const { key_id, public_key_pem } = keys.create(expires_at, null);
      return { key: keyInfo(keys.entries().find((entry) => entry.key_id === key_id)!), public_key_pem };
    },
    deleteKey({ key_id }: Request<'deleteClientKey'>): SentReply<'deleteClientKey'> {
      keys.delete(key_id);
      return { deleted: true };
    },
    listSessions: (): SessionInfo[] => sessions.list().map(sessionInfo),
    revokeSession({ id }: Request<'revokeSession'>): SentReply<'revokeSession'> {
      sessions.revoke(id);
      return { revoked: true };
    },
  };
}

export type ClientAccess = ReturnType<typeof clientAccess>;
