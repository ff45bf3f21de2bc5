import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import type { ReactorDefinition } from '../../electron/engine/reactors/reactor-model';
import { ReactorResults, RESULT_TTL_MS } from '../../electron/engine/reactors/reactor-results';
import { ReactorStore } from '../../electron/engine/reactors/reactor-store';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { AnyUnitRunner } from '../../electron/engine/storage/unit';
import { bothDatabases, raisedSince, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

/** The reactors' stores (the reactors, their asynchronous results), the same classes over SQLite and PostgreSQL. */
const sealer = new Sealer(randomBytes(32));
const cause = { actor: { id: 'app-1', type: 'application' as const }, traceId: 'trace-1' };
const databases = bothDatabases('reactors');

const definition = (name: string): ReactorDefinition => ({
  name,
  code: `module.exports = async (req) => ({ raw: '${name}' });`,
  configuration: { API_TOKEN: `secret-of-${name}` },
  application_id: null,
  runtime: null,
});
const failure = { error_code: 'dependency_unavailable' as const, error_message: 'left-pad is not installed', error_details: { code: ['left-pad'] } };

async function reactorStore(units: AnyUnitRunner) {
  const outbox = new EventOutbox(units, 'tenant-1');
  outbox.subscribe(['reactor.created', 'reactor.updated', 'reactor.deleted']);
  const reactors = new ReactorStore(units, sealer, outbox);
  await reactors.load();
  return { outbox, reactors };
}
const answer = (raw: string) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: { raw } });

describePostgres('the reactor stores on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('on %s', (side) => {
    it('creates, replaces, activates and deletes reactors with their events, kept across a reload', async () => {
      const units = databases.runner(side);
      const { reactors, outbox } = await reactorStore(units);
      const before = (await outbox.pending(1000)).length;
      const first = await reactors.create(definition('first'), 'app-1', null, cause);
      const second = await reactors.create(definition('second'), 'app-1', failure, cause);
      expect(second).toMatchObject({ state: 'failed', live: false });
      const replaced = await reactors.replace(first.id, definition('renamed'), 'app-2', null, cause);
      // The folder now holds what it lacked (a null runtime needs nothing): the change goes live when next read.
      const activated = await reactors.settled(second.id, null);
      expect(activated).toMatchObject({ state: 'active', live: true, requested: null });
      expect(await reactors.settled(first.id, null)).toBe(replaced);

      const reloaded = (await reactorStore(units)).reactors;
      expect(reloaded.require(first.id)).toMatchObject({ ...replaced, name: 'renamed', modified_by: 'app-2' });
      expect(reloaded.require(second.id)).toMatchObject(activated);

      await reactors.delete(first.id, cause);
      expect(reactors.list([first.id], undefined)).toEqual([]);
      expect((await reactorStore(units)).reactors.list([first.id], undefined)).toEqual([]);
      expect(await raisedSince(outbox, before, 'reactor')).toEqual([
        ['reactor.created', first.id],
        ['reactor.created', second.id],
        ['reactor.updated', first.id],
        ['reactor.deleted', first.id],
      ]);
      // Deleted by another replica since this one read it: a 404, and forgotten here too.
      await reloaded.delete(second.id, cause);
      await expect(reactors.replace(second.id, definition('late'), 'app-1', null, cause)).rejects.toMatchObject({ status: 404 });
      expect(reactors.list([second.id], undefined)).toEqual([]);
    });

    it('keeps nothing of a create whose event cannot be stored', async () => {
      const units = databases.runner(side);
      const { reactors } = await reactorStore(units);
      await databases.withoutOutbox(side, () => expect(reactors.create(definition('doomed'), 'app-1', null, cause)).rejects.toThrow(/event_outbox/));
      expect(reactors.list([], 'doomed')).toEqual([]);
      expect((await reactorStore(units)).reactors.list([], 'doomed')).toEqual([]);
    });

    it('keeps asynchronous results, fails those a stopped engine left pending, and purges them after 24 hours', async () => {
      const units = databases.runner(side);
      let now = Date.now();
      const results = new ReactorResults(units, sealer, () => now);
      const reactorId = randomUUID();
      const done = await results.start(reactorId);
      const lost = await results.start(reactorId);
      expect(await results.get(reactorId, done)).toBe('pending');
      expect(await results.finish(reactorId, done, answer('kept'))).toBeNull();
      expect(await results.get(reactorId, done)).toEqual(answer('kept'));
      expect(await results.get(randomUUID(), done)).toBeUndefined();

      // The next start: what was pending was lost with the process that ran it.
      const restarted = new ReactorResults(units, sealer, () => now);
      await restarted.load();
      expect(await restarted.get(reactorId, lost)).toMatchObject({ status: 500, body: { detail: 'Reactor Runtime Error' } });
      expect(await restarted.get(reactorId, done)).toEqual(answer('kept'));

      now += RESULT_TTL_MS + 1;
      expect(await restarted.get(reactorId, done)).toBeUndefined();
      expect(await restarted.purgeExpired()).toBe(2);
      now -= RESULT_TTL_MS + 1;
      expect(await restarted.get(reactorId, done)).toBeUndefined();
    });
  });
});
