import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { writeDefinitionFiles } from '../../electron/engine/proxies/files/definition-writer';
import { FileIdentities } from '../../electron/engine/proxies/files/file-identities';
import { ProxyFolder } from '../../electron/engine/proxies/files/proxy-folder';
import type { ProxyDefinition } from '../../electron/engine/proxies/proxy-model';
import { ProxyStore } from '../../electron/engine/proxies/proxy-store';
import { SecretStore } from '../../electron/engine/secrets/secret-store';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { AnyUnitRunner } from '../../electron/engine/storage/unit';
import { bothDatabases, raisedSince, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

/** The pre-configured proxies' store, the same class over the SQLite file and over PostgreSQL. */
const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const cause = { actor: { id: 'app-1', type: 'application' as const }, traceId: 'trace-1' };
const databases = bothDatabases('proxies');

const definition = (name: string): ProxyDefinition => ({
  name,
  destination_url: `https://api.example.com/${name}`,
  request_transforms: [],
  response_transforms: [],
  application_id: null,
  configuration: { API_TOKEN: `secret-of-${name}` },
  require_auth: true,
  disable_detokenization: false,
});
const failure = { error_code: 'dependency_unavailable' as const, error_message: 'left-pad is not installed', error_details: { 'request_transforms[0].code': ['left-pad'] } };

async function stores(units: AnyUnitRunner) {
  const outbox = new EventOutbox(units, TENANT);
  outbox.subscribe(['proxy.created', 'proxy.updated', 'proxy.deleted']);
  const proxies = new ProxyStore(units, sealer, outbox);
  await proxies.load();
  return { outbox, proxies };
}

describePostgres('the proxy store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('on %s', (side) => {
    it('creates, reads, replaces, activates and deletes proxies with their events, kept across a reload', async () => {
      const units = databases.runner(side);
      const { proxies, outbox } = await stores(units);
      const before = (await outbox.pending(1000)).length;
      const first = await proxies.create(definition('first'), 'app-1', null, cause);
      const second = await proxies.create(definition('second'), 'app-1', failure, cause);
      expect(first).toMatchObject({ state: 'active', live: true, requested: null });
      expect(second).toMatchObject({ state: 'failed', live: false, requested: { error_code: 'dependency_unavailable' } });
      expect(proxies.byInvocationKey(first.key)).toBe(first);
      expect(proxies.require(first.id.toUpperCase())).toBe(first);

      const replaced = await proxies.replace(first.id, { ...definition('renamed'), configuration: { API_TOKEN: 'rotated' } }, 'app-2', null, cause);
      const activated = await proxies.activate(second.id);
      expect(activated).toMatchObject({ state: 'active', live: true, requested: null, name: 'second' });

      const reloaded = (await stores(units)).proxies;
      const mine = (proxy: { id: string }) => proxy.id === first.id || proxy.id === second.id;
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      // What a reload reads back is what the writes left in memory (its rows' columns besides).
      expect(reloaded.list({ ids: [], name: undefined }).filter(mine).sort(byName)).toMatchObject([replaced, activated].sort(byName));
      expect(reloaded.byInvocationKey(first.key)).toMatchObject({ id: first.id, name: 'renamed', configuration: { API_TOKEN: 'rotated' }, modified_by: 'app-2' });

      await proxies.delete(first.id, cause);
      expect(proxies.byInvocationKey(first.key)).toBeUndefined();
      expect((await stores(units)).proxies.holds(first.id, first.key)).toBe(false);
      expect(await raisedSince(outbox, before, 'proxy')).toEqual([
        ['proxy.created', first.id],
        ['proxy.created', second.id],
        ['proxy.updated', first.id],
        ['proxy.deleted', first.id],
      ]);

      // Deleted by another replica since this one read it: a 404, and forgotten here too.
      await reloaded.delete(second.id, cause);
      await expect(proxies.replace(second.id, definition('late'), 'app-1', null, cause)).rejects.toMatchObject({ status: 404 });
      expect(proxies.holds(second.id, second.key)).toBe(false);
    });

    it('keeps nothing of a create whose event cannot be stored: no row, no proxy in memory', async () => {
      const units = databases.runner(side);
      const { proxies } = await stores(units);
      await databases.withoutOutbox(side, () => expect(proxies.create(definition('doomed'), 'app-1', null, cause)).rejects.toThrow(/event_outbox/));
      expect(proxies.list({ ids: [], name: 'doomed' })).toEqual([]);
      expect((await stores(units)).proxies.list({ ids: [], name: 'doomed' })).toEqual([]);
    });

    it('keeps nothing of an export whose proxy cannot be taken from the API: no file, no identity, the proxy served as before', async () => {
      const units = databases.runner(side);
      const { proxies } = await stores(units);
      const proxy = await proxies.create(definition('exported'), 'app-1', null, cause);
      const secrets = new SecretStore(units, sealer);
      await secrets.load();
      const folder = new ProxyFolder({ kinds: [], secrets, report: () => undefined });
      const root = join(databases.dir, `export-${side}`);
      mkdirSync(root);
      await folder.open(root);
      const identities = new FileIdentities(units, sealer, 'proxy');
      const exporting = () => writeDefinitionFiles(folder, secrets, [], {
        path: 'exported.json',
        configuration: {},
        secretsFrom: 'EXPORTED',
        json: () => ({ name: 'exported' }),
        code: [],
        identities,
        identity: { id: proxy.id, key: proxy.key, created_at: proxy.created_at },
        commit: () => proxies.delete(proxy.id, cause),
      });
      await databases.withoutOutbox(side, () => expect(exporting()).rejects.toThrow(/event_outbox/));
      expect(existsSync(join(root, 'exported.json'))).toBe(false);
      expect(await identities.hasId(proxy.id)).toBe(false);
      expect(proxies.holds(proxy.id, proxy.key)).toBe(true);
      expect((await stores(units)).proxies.holds(proxy.id, proxy.key)).toBe(true);
      folder.close();
    });
  });
});
