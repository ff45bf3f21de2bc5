import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApplicationStore } from '../../electron/engine/access/application-store';
import { SessionStore } from '../../electron/engine/access/session-store';
import { EventOutbox, WORKBENCH_CAUSE } from '../../electron/engine/events/event-outbox';
import { Sealer } from '../../electron/engine/storage/crypto';
import { bothDatabases, SIDES, storedEventTypes } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const grant = (expiresAt: string | null = null) => ({ permissions: ['token:read'], rules: [], expires_at: expiresAt });

const both = bothDatabases('session_store');

describePostgres('the session store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    let outbox: EventOutbox;
    /** A store over this side's database, as a start makes it: loaded from what the database holds. */
    const opened = async () => {
      const store = new SessionStore(both.runners[side], sealer, outbox);
      await store.load();
      return store;
    };
    const events = () => storedEventTypes(both.runners[side]);
    let store: SessionStore;
    let frontEnd: string;
    beforeAll(async () => {
      outbox = new EventOutbox(both.runners[side], TENANT);
      outbox.subscribe(['session.created', 'session.authorized']);
      const applications = new ApplicationStore(both.runners[side], sealer, TENANT, outbox);
      frontEnd = (await applications.create({ name: 'Front end', type: 'public', permissions: [], rules: [] }, null, { create: false }, null)).application.id;
      store = await opened();
    });

    it('makes a session that its key finds, authorizes it once by its nonce, and a store started afresh finds the grant', async () => {
      const made = await store.create(frontEnd, WORKBENCH_CAUSE);
      expect(store.findByKey(made.session_key)).toMatchObject({ id: made.id, application_id: frontEnd, permissions: null });
      expect((await opened()).findByKey(made.session_key)?.id).toBe(made.id);
      expect((await store.list()).map((s) => s.id)).toContain(made.id);

      const granted = await store.authorize(made.nonce, grant(), 'app-backend', WORKBENCH_CAUSE);
      expect(granted).toMatchObject({ id: made.id, permissions: ['token:read'], rules: [] });
      expect(store.findByKey(made.session_key)).toEqual(granted);
      expect((await opened()).findByKey(made.session_key)).toEqual(granted);
      expect(await events()).toEqual(['session.created', 'session.authorized']);

      // A second authorize is refused whole: the grant stays, and no event is stored.
      await expect(store.authorize(made.nonce, { ...grant(), permissions: ['token:create'] }, 'app-other', WORKBENCH_CAUSE)).rejects.toMatchObject({ status: 409 });
      await expect(store.authorize('not-a-nonce', grant(), 'app-backend', WORKBENCH_CAUSE)).rejects.toMatchObject({ status: 404 });
      expect((await opened()).findByKey(made.session_key)).toEqual(granted);
      expect(await events()).toEqual(['session.created', 'session.authorized']);
    });

    it('revokes a live session at once, and lists the live ones oldest first', async () => {
      const first = await store.create(frontEnd, WORKBENCH_CAUSE);
      const second = await store.create(frontEnd, WORKBENCH_CAUSE);
      const listed = await store.list();
      expect(listed.map((s) => s.id)).toEqual(expect.arrayContaining([first.id, second.id]));
      // Oldest first; two made within one millisecond go by id.
      const key = (s: { created_at: string; id: string }) => `${s.created_at} ${s.id}`;
      expect(listed.map(key)).toEqual(listed.map(key).sort());
      expect(store.applicationOf(first.id)).toBe(frontEnd);
      await store.revoke(first.id);
      expect(store.findByKey(first.session_key)).toBeUndefined();
      expect((await opened()).findByKey(first.session_key)).toBeUndefined();
      expect((await store.list()).map((s) => s.id)).not.toContain(first.id);
      await expect(store.revoke(first.id)).rejects.toMatchObject({ status: 404 });
    });

    it('treats a session past its expiry as gone, and purges it', async () => {
      const made = await store.create(frontEnd, WORKBENCH_CAUSE);
      await store.authorize(made.nonce, grant(new Date(Date.now() - 1000).toISOString()), 'app-backend', WORKBENCH_CAUSE);
      expect(store.findByKey(made.session_key)).toBeUndefined();
      expect((await store.list()).map((s) => s.id)).not.toContain(made.id);
      expect(await store.purgeExpired()).toBe(1);
      expect(store.applicationOf(made.id)).toBeUndefined();
      expect(await store.purgeExpired()).toBe(0);
    });
  });
});
