import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FileIdentities } from '../../electron/engine/proxies/files/file-identities';
import { Sealer } from '../../electron/engine/storage/crypto';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const both = bothDatabases('file_identities');
const sealer = new Sealer(randomBytes(32));

describePostgres('file identities on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    /** A replica's identities of `kind`, over a runner of its own. */
    const replica = (kind: 'proxy' | 'reactor' = 'proxy') => new FileIdentities(both.runner(side), sealer, kind);

    it('gives a file the same id and key on every replica and every load', async () => {
      const made = await replica().of('charge.json');
      expect(made.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(made.key).not.toBe('');
      expect(await replica().of('charge.json')).toEqual(made);
      expect(await replica().hasId(made.id.toUpperCase())).toBe(true);
      // A reactor's identities are another kind's: the proxy's id is not one of them.
      expect(await replica('reactor').hasId(made.id)).toBe(false);
      expect((await replica('reactor').of('card.reactor.json')).key).toBe('');
    });

    it('ends with one identity when replicas load the same new file at once', async () => {
      const loaded = await Promise.all([replica(), replica(), replica(), replica()].map((identities) => identities.of('raced.json')));
      expect(new Set(loaded.map(({ id }) => id)).size).toBe(1);
      expect(new Set(loaded.map(({ key }) => key)).size).toBe(1);
    });

    it('keeps an identity through a rename unless the new path has its own, and lets a claim replace one', async () => {
      const identities = replica();
      const made = await identities.of('before.json');
      expect(await identities.move('before.json', 'after.json')).toBe(true);
      expect(await replica().of('after.json')).toEqual(made);
      const other = await identities.of('other.json');
      expect(await identities.move('after.json', 'other.json')).toBe(false);
      expect(await replica().of('other.json')).toEqual(other);

      const hosted = { id: randomUUID(), key: 'kept-key', created_at: '2026-01-01T00:00:00.000Z' };
      expect(await identities.claim('other.json', hosted)).toEqual(hosted);
      expect(await replica().of('other.json')).toEqual(hosted);
      expect(await replica().hasId(other.id)).toBe(false);
    });
  });
});
