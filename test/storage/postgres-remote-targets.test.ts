import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Sealer } from '../../electron/engine/storage/crypto';
import { RemoteTargets } from '../../electron/engine/workbench/remote-targets';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

/** The Composer's remote targets, the same class over SQLite and PostgreSQL. */
const sealer = new Sealer(randomBytes(32));
const databases = bothDatabases('remote_targets');

describePostgres('the remote targets on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('on %s', (side) => {
    it('adds, lists, connects to and deletes remote targets, their keys sealed and shown by their last four', async () => {
      const targets = new RemoteTargets(databases.runner(side), sealer);
      const hosted = await targets.add({ name: 'hosted', base_url: 'https://api.example.com/', api_key: 'key_prod_0123456789abcd' });
      const other = await targets.add({ name: 'other', base_url: 'http://127.0.0.1:4000', api_key: 'short' });
      expect(hosted).toMatchObject({ base_url: 'https://api.example.com', key_last4: 'abcd' });
      expect((await targets.list()).filter((t) => t.id === hosted.id || t.id === other.id).sort((a, b) => a.name.localeCompare(b.name))).toEqual([hosted, { ...other, key_last4: '' }]);
      expect(await targets.connection(hosted.id)).toEqual({ baseUrl: 'https://api.example.com', apiKey: 'key_prod_0123456789abcd' });
      await expect(targets.add({ name: 'bad', base_url: 'ftp://example.com', api_key: 'k' })).rejects.toMatchObject({ status: 400 });

      expect(await targets.delete(hosted.id)).toBe(true);
      expect(await targets.delete(hosted.id)).toBe(false);
      await expect(targets.connection(hosted.id)).rejects.toMatchObject({ status: 404 });
      await expect(targets.connection(randomUUID())).rejects.toMatchObject({ status: 404 });
      expect(await targets.delete(other.id)).toBe(true);
      expect(await targets.list()).toEqual([]);
    });
  });
});
