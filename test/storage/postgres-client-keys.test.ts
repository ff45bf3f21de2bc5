import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientKeyStore } from '../../electron/engine/encryption-keys/client-key-store';
import { Sealer } from '../../electron/engine/storage/crypto';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

/** The client encryption keys' store, the same class over SQLite and PostgreSQL. */
const sealer = new Sealer(randomBytes(32));
const databases = bothDatabases('client_keys');
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describePostgres('the client key store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('on %s', (side) => {
    it('creates, lists, opens, deletes and expires client keys', async () => {
      const keys = new ClientKeyStore(databases.runner(side), sealer);
      const first = await keys.create(inDays(1), 'app-1');
      const second = await keys.create(inDays(2), null);
      expect(first.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/]{43}=\n-----END PUBLIC KEY-----$/);
      expect((await keys.list()).map((key) => key.key_id)).toEqual(expect.arrayContaining([first.key_id, second.key_id]));
      expect((await keys.details()).find((key) => key.key_id === first.key_id)).toMatchObject({ created_by: 'app-1', expires_at: first.expires_at });
      expect(await keys.require(first.key_id)).toEqual({ key_id: first.key_id, expires_at: first.expires_at });
      expect((await keys.privateKey(first.key_id))?.asymmetricKeyType).toBe('x25519');

      await keys.delete(first.key_id);
      expect(await keys.find(first.key_id)).toBeUndefined();
      expect(await keys.privateKey(first.key_id)).toBeUndefined();
      await expect(keys.delete(first.key_id)).rejects.toMatchObject({ status: 404 });
      await expect(keys.require(randomUUID())).rejects.toMatchObject({ status: 404 });

      // Made already expired: gone to every read, and purged.
      const expired = await keys.create(inDays(-1), 'app-1');
      expect(await keys.find(expired.key_id)).toBeUndefined();
      expect(await keys.purgeExpired()).toBe(1);
      await keys.delete(second.key_id);
    });
  });
});
