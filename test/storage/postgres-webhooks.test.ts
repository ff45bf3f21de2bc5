import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventOutbox, type RaisedEvent } from '../../electron/engine/events/event-outbox';
import { ApiProblem } from '../../electron/engine/server/problem';
import { query, tx, type AnyUnitRunner } from '../../electron/engine/storage/unit';
import { DeliveryStore, type DeliveredEvent } from '../../electron/engine/webhooks/delivery-store';
import type { WebhookDefinition } from '../../electron/engine/webhooks/webhook-model';
import { WebhookStore } from '../../electron/engine/webhooks/webhook-store';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

/**
 * The webhooks' stores, the same classes over the SQLite file and over PostgreSQL: what the routes, the workbench and
 * the dispatcher see of them is the same on both, and on PostgreSQL two replicas never claim one delivery.
 */
const TENANT = 'tenant-1';
const LEASE_MS = 20_000;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const outboxRows = query<number>('outbox rows', 'SELECT COUNT(*) FROM event_outbox', { pluck: true });
const deliveryRows = query<number>('delivery rows', 'SELECT COUNT(*) FROM webhook_deliveries', { pluck: true });
const databases = bothDatabases('webhooks');

const definition = (name: string, events: WebhookDefinition['events'] = ['token.created']): WebhookDefinition => ({
  name,
  url: `https://hooks.example.com/${name}`,
  notify_email: null,
  events,
});
const created = (id: string): RaisedEvent => ({ type: 'token.created', data: () => ({ token: { id, type: 'card' } }), traceId: `trace-${id}` });
/** Made within one millisecond, webhooks list in the order of their random ids: compared by name. */
const byName = (webhooks: WebhookStore) => webhooks.list().sort((a, b) => a.name.localeCompare(b.name));
const testEvent = (): DeliveredEvent => ({ id: randomUUID(), tenant_id: TENANT, type: 'test', timestamp: new Date().toISOString(), trace_id: null, data: {} });

/** The feature's stores over one runner, the webhooks read as a restart reads them. */
async function stores(units: AnyUnitRunner) {
  const outbox = new EventOutbox(units, TENANT);
  const webhooks = new WebhookStore(units, outbox);
  await webhooks.load();
  return { units, outbox, webhooks, deliveries: new DeliveryStore(units, outbox, webhooks) };
}

describePostgres('the webhook stores on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('on %s', (side) => {
    it('create, read, replace, disable and delete webhooks, kept across a reload, and refuse a sixth', async () => {
      const units = databases.runner(side);
      const { webhooks, outbox } = await stores(units);
      await webhooks.deleteAll();
      const first = await webhooks.create(definition('first', ['token.created', 'token.read']), 'app-1');
      const second = await webhooks.create(definition('second', ['proxy.invoked']), 'app-1');
      expect(webhooks.require(first.id.toUpperCase())).toEqual(first);
      expect(() => webhooks.require(randomUUID())).toThrow(ApiProblem);
      expect(outbox.wants('token.read')).toBe(true);

      const replaced = await webhooks.replace(first.id, { ...definition('renamed', ['token.updated']) }, 'app-2');
      await webhooks.disable(second.id);
      expect(outbox.wants('token.read')).toBe(false);
      expect(outbox.wants('proxy.invoked')).toBe(false);

      const reloaded = (await stores(units)).webhooks;
      expect(byName(reloaded)).toEqual([replaced, { ...second, status: 'disabled' }]);
      expect(replaced).toMatchObject({ name: 'renamed', events: ['token.updated'], modified_by: 'app-2', status: 'enabled' });

      for (const name of ['third', 'fourth', 'fifth']) await webhooks.create(definition(name), 'app-1');
      await expect(webhooks.create(definition('sixth'), 'app-1')).rejects.toMatchObject({ status: 422 });
      // A store loaded before the last three were made (another replica's) still holds two: the database refuses the sixth.
      await expect(reloaded.create(definition('sixth'), 'app-1')).rejects.toMatchObject({ status: 422 });
      expect(byName((await stores(units)).webhooks).map((w) => w.name)).toEqual(['fifth', 'fourth', 'renamed', 'second', 'third']);

      await webhooks.delete(second.id);
      expect(byName((await stores(units)).webhooks).map((w) => w.name)).toEqual(['fifth', 'fourth', 'renamed', 'third']);
      expect(await webhooks.deleteAll()).toBe(4);
      expect((await stores(units)).webhooks.list()).toEqual([]);
    });

    it('hand events over as deliveries, claim each once, record attempts and list them newest first', async () => {
      const { units, webhooks, outbox, deliveries } = await stores(databases.runner(side));
      await webhooks.deleteAll();
      const hook = await webhooks.create(definition('receiver'), 'app-1');
      const other = await webhooks.create(definition('other', ['token.deleted']), 'app-1');
      const heard: string[] = [];
      deliveries.onChange((webhookId) => heard.push(webhookId));

      await units.run(function* () {
        yield* outbox.store(created('t1'));
        yield* outbox.store(created('t2'));
        yield* outbox.store({ ...created('t3'), type: 'token.deleted' });
      });
      // A unit that fails stores nothing: its event goes with it.
      const failing = async () =>
        units.run(function* () {
          yield* outbox.store(created('rolled-back'));
          throw new Error('the change failed');
        });
      await expect(failing()).rejects.toThrow('the change failed');
      expect(await units.read(() => tx.get(outboxRows))).toBe(3);

      await deliveries.handOver();
      expect(await outbox.pending(10)).toEqual([]);
      expect(heard.sort()).toEqual([hook.id, other.id].sort());
      expect(await deliveries.anyDue()).toBe(true);

      const claimed = await deliveries.claim(10, LEASE_MS);
      expect(claimed.map((d) => [d.webhook_id, (d.event.data.token as { id: string }).id])).toEqual([
        [hook.id, 't1'],
        [hook.id, 't2'],
        [other.id, 't3'],
      ]);
      // Claimed: none is due again until its lease ends.
      expect(await deliveries.claim(10, LEASE_MS)).toEqual([]);
      expect(await deliveries.anyDue()).toBe(false);
      expect(await deliveries.nextDueAt()).toBeGreaterThan(Date.now() + LEASE_MS / 2);

      const [t1, t2, t3] = claimed;
      const outcome = (status: number) => ({ status, latencyMs: 12.4, error: status === 200 ? null : `the receiver answered ${status}`, body: '{"event":{}}' });
      expect(await deliveries.attempted(t1, outcome(200), true, null, 1)).toBe(false);
      expect(await deliveries.attempted(t2, outcome(503), false, null, 1)).toBe(true);
      const retryAt = Date.now() + 60_000;
      expect(await deliveries.attempted(t3, outcome(500), false, retryAt, 1)).toBe(false);
      await deliveries.release(t3);
      expect((await deliveries.claim(10, LEASE_MS)).map((d) => d.id)).toEqual([t3.id]);

      const recent = await deliveries.recent(hook.id, 10);
      expect(recent.map((d) => [d.id, d.state, d.attempts, d.last_status, d.latency_ms])).toEqual([
        [t2.id, 'exhausted', 1, 503, 12],
        [t1.id, 'delivered', 1, 200, 12],
      ]);
      expect(recent.every((d) => d.next_attempt_at === null && d.event_type === 'token.created')).toBe(true);
      expect(await deliveries.recent(hook.id, 1)).toEqual([recent[0]]);
      const pending = await deliveries.get(t3.id);
      expect(pending).toMatchObject({ state: 'pending', attempts: 1, error: 'the receiver answered 500' });
      expect(pending!.next_attempt_at).toMatch(ISO);
      expect(Math.abs(Date.parse(pending!.next_attempt_at!) - (Date.now() + LEASE_MS))).toBeLessThan(5_000);
      expect(await deliveries.eventOf(t1.id)).toEqual({ webhook_id: hook.id, event: t1.event });
      expect(await deliveries.get(randomUUID())).toBeUndefined();

      const added = await deliveries.add(hook.id, testEvent());
      expect(added).toMatchObject({ webhook_id: hook.id, event_type: 'test', state: 'pending', attempts: 0, last_status: null });
      expect(Math.abs(Date.parse(added.next_attempt_at!) - Date.now())).toBeLessThan(5_000);
      // A disabled webhook's deliveries wait: none falls due.
      await webhooks.disable(hook.id);
      expect(await deliveries.claim(10, LEASE_MS)).toEqual([]);
      await webhooks.deleteAll();
      expect(await units.read(() => tx.get(deliveryRows))).toBe(0);
    });
  });

  it('gives two replicas claiming at once different deliveries, and skips one another replica is claiming', async () => {
    const replicas = await Promise.all([stores(databases.runner('PostgreSQL')), stores(databases.runner('PostgreSQL'))]);
    const [one, two] = replicas;
    await one.webhooks.deleteAll();
    const hook = await one.webhooks.create(definition('receiver'), 'app-1');
    await two.webhooks.load();
    const claimed: string[] = [];
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 8; i++) await (i % 2 ? one : two).deliveries.add(hook.id, testEvent());
      // Between them they ask for more than is due: every due delivery is claimed, by one of them.
      const claims = await Promise.all([one.deliveries.claim(5, LEASE_MS), two.deliveries.claim(5, LEASE_MS)]);
      claimed.push(...claims.flat().map((d) => d.id));
      expect(claimed).toHaveLength(8 * (round + 1));
    }
    expect(new Set(claimed).size).toBe(claimed.length);

    // Another replica holds three due deliveries in its claim, not yet committed: this one takes the others at once.
    const due = await Promise.all(Array.from({ length: 5 }, () => one.deliveries.add(hook.id, testEvent())));
    const other = await databases.pool().connect();
    try {
      await other.query('BEGIN');
      const held = await other.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE id = ANY($1) FOR UPDATE', [due.slice(0, 3).map((d) => d.id)]);
      expect(held.rowCount).toBe(3);
      const taken = await two.deliveries.claim(10, LEASE_MS);
      expect(taken.map((d) => d.id).sort()).toEqual(due.slice(3).map((d) => d.id).sort());
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
    expect((await one.deliveries.claim(10, LEASE_MS)).map((d) => d.id).sort()).toEqual(due.slice(0, 3).map((d) => d.id).sort());
    await one.webhooks.deleteAll();
  });
});
