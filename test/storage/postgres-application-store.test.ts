import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Application, ApplicationStore, type ApplicationInput } from '../../electron/engine/access/application-store';
import { bootstrap } from '../../electron/engine/access/first-start';
import { EventOutbox, WORKBENCH_CAUSE } from '../../electron/engine/events/event-outbox';
import { ApiProblem } from '../../electron/engine/server/problem';
import { Sealer } from '../../electron/engine/storage/crypto';
import { bothDatabases, SIDES, storedEventTypes } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const backend = (name: string, type: ApplicationInput['type'] = 'private'): ApplicationInput => ({ name, type, permissions: ['token:read'], rules: [] });

const both = bothDatabases('application_store');

describePostgres('the application store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    /** A store over this side's database, as a start makes it: loaded from what the database holds. */
    const opened = async () => {
      const outbox = new EventOutbox(both.runners[side], TENANT);
      outbox.subscribe(['application.created', 'application.deleted', 'application.key.created']);
      const store = new ApplicationStore(both.runners[side], sealer, TENANT, outbox);
      await store.load();
      return store;
    };
    const events = () => storedEventTypes(both.runners[side]);
    let store: ApplicationStore;
    beforeAll(async () => {
      store = await opened();
    });

    it('makes the first two applications of an empty store once, each with a key that authenticates', async () => {
      const keys = await bootstrap(store);
      expect(keys).not.toBeNull();
      expect(store.findByKey(keys!.management.key)?.application.name).toBe('Tokenbench management');
      expect(store.findByKey(keys!.private.key)?.application.id).toBe(keys!.private.application_id);
      expect(await bootstrap(await opened())).toBeNull();
    });

    it('creates, reads, updates and deletes an application and its keys, as a store started afresh reads them too', async () => {
      const { application, key } = await store.create(backend('Billing'), 'app-admin', { create: true }, WORKBENCH_CAUSE);
      expect(store.findByKey(key!.key)).toEqual({ application, keyId: key!.id });
      const again = await opened();
      expect(again.require(application.id)).toEqual(application);
      expect(again.findByKey(key!.key)?.keyId).toBe(key!.id);

      const updated = await store.update(application.id, { ...backend('Billing v2'), permissions: ['token:read', 'token:create'] }, 'app-admin', WORKBENCH_CAUSE);
      expect(updated).toMatchObject({ name: 'Billing v2', permissions: ['token:read', 'token:create'], modified_by: 'app-admin' });
      expect((await opened()).require(application.id)).toEqual(updated);

      const second = await store.createKey(application.id, null, WORKBENCH_CAUSE);
      expect(store.listKeys(application.id).map((k) => k.id)).toEqual([key!.id, second.id]);
      await store.deleteKey(application.id, key!.id, WORKBENCH_CAUSE);
      expect(store.findByKey(key!.key)).toBeUndefined();
      expect((await opened()).findByKey(key!.key)).toBeUndefined();
      await expect(store.deleteKey(application.id, key!.id, WORKBENCH_CAUSE)).rejects.toMatchObject({ status: 404 });

      const regenerated = await store.regenerateKey(application.id, null, WORKBENCH_CAUSE);
      expect(store.findByKey(second.key)).toBeUndefined();
      expect(store.findByKey(regenerated.key.key)?.application.id).toBe(application.id);

      await store.delete(application.id, WORKBENCH_CAUSE);
      expect(store.get(application.id)).toBeUndefined();
      expect(store.findByKey(regenerated.key.key)).toBeUndefined();
      expect((await opened()).get(application.id)).toBeUndefined();
      await expect(store.delete(application.id, WORKBENCH_CAUSE)).rejects.toMatchObject({ status: 404 });
      expect(await events()).toEqual(['application.created', 'application.key.created', 'application.key.created', 'application.key.created', 'application.deleted']);
    });

    it('refuses a key already in use, and the create it was part of leaves neither the application nor its event', async () => {
      const before = await events();
      const { key } = await store.create(backend('Holder'), null, { create: true }, WORKBENCH_CAUSE);
      const refused = store.create(backend('Taker'), null, { create: true, secret: key!.key }, WORKBENCH_CAUSE);
      await expect(refused).rejects.toBeInstanceOf(ApiProblem);
      await expect(refused).rejects.toMatchObject({ status: 409 });
      expect(store.findByName('Taker')).toEqual([]);
      expect((await opened()).findByName('Taker')).toEqual([]);
      expect((await events()).length).toBe(before.length + 2);
    });

    it('pages applications oldest first, filtered by id and type', async () => {
      const fresh = await opened();
      const made = [];
      for (const name of ['Page A', 'Page B', 'Page C']) made.push((await fresh.create(backend(name, name === 'Page B' ? 'management' : 'private'), null, { create: false }, null)).application);
      // Oldest first; two made within one millisecond go by id.
      const order = (x: Application, y: Application) => x.created_at.localeCompare(y.created_at) || (x.id < y.id ? -1 : 1);
      const all = fresh.page(1, 100).items;
      expect(all.slice(-3)).toEqual([...made].sort(order));
      const total = fresh.count();
      expect(fresh.page(2, total - 1)).toEqual({ total, items: [all[total - 1]] });
      expect(fresh.page(1, 10, { ids: [made[0].id, made[1].id], types: ['private'] })).toEqual({ total: 1, items: [made[0]] });
      expect((await opened()).page(1, 100).items).toEqual(all);
    });

    it('keeps a kept key sealed: made once, opened again by a store started afresh, gone with the key', async () => {
      const { application } = await store.create(backend('Kept'), null, { create: false }, null);
      const made = await store.keptKey(application.id, 'workbench');
      expect(made.made).toBe(true);
      expect(await store.keptKey(application.id, 'workbench')).toEqual({ ...made, made: false });
      const again = await opened();
      expect(await again.keptKey(application.id, 'workbench')).toEqual({ ...made, made: false });
      expect(again.keyFacts(application.id).get(made.id)).toEqual({ key_last4: made.key.slice(-4), kept: 'workbench' });
      await again.deleteKey(application.id, made.id, null);
      expect((await opened()).keptKeyInfo(application.id, 'workbench')).toBeNull();
    });
  });
});
