import { afterEach, describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { eventTypeOf } from '../../electron/engine/events/event-types';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';

let db: Db;
afterEach(() => db?.close());

function outbox(): EventOutbox {
  db = openDatabase({ dataDir: null });
  const box = new EventOutbox(unitsOf(db), 'tenant-1');
  box.subscribe(['token.created']);
  return box;
}

const tokenCreated = { type: 'token.created' as const, data: () => ({ token: { id: 't1', type: 'card' } }), actor: { id: 'app-1', type: 'application' as const }, traceId: 'trace-1' };

describe('the event outbox', () => {
  it('keeps an event raised in a transaction that commits, with its envelope fields', async () => {
    const box = outbox();
    db.transaction(() => box.raise(tokenCreated))();
    const [{ event }] = await box.pending(10);
    expect(event).toMatchObject({ tenant_id: 'tenant-1', type: 'token.created', trace_id: 'trace-1', data: { token: { id: 't1' }, actor: { id: 'app-1' } } });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps nothing of a transaction that rolls back', async () => {
    const box = outbox();
    expect(() =>
      db.transaction(() => {
        box.raise(tokenCreated);
        throw new Error('the change failed');
      })(),
    ).toThrow('the change failed');
    expect(await box.pending(10)).toEqual([]);
  });

  it('stores nothing, and builds no data, for a type no subscription wants', async () => {
    const box = outbox();
    let built = false;
    box.raise({ type: 'token.read', data: () => ((built = true), {}) });
    expect(await box.pending(10)).toEqual([]);
    expect(built).toBe(false);
  });

  it('hands events over oldest first and forgets each once handed over', async () => {
    const box = outbox();
    box.raise(tokenCreated);
    box.raise({ ...tokenCreated, data: () => ({ token: { id: 't2' } }) });
    const [first, second] = await box.pending(10);
    expect([first.event.data.token, second.event.data.token]).toEqual([{ id: 't1', type: 'card' }, { id: 't2' }]);
    unitsOf(db).run(() => box.handedOver(first.seq));
    expect((await box.pending(10)).map((p) => p.seq)).toEqual([second.seq]);
  });

  it("stores a batch of reads' events together and hands each over with its read's time, actor and trace id", async () => {
    const box = outbox();
    box.subscribe(['token.read']);
    const app = { id: 'app-1', type: 'application' as const };
    const person = { id: 'user-1', name: 'Ann', type: 'user' as const };
    const before = Date.now();
    box.raiseReads([{ id: 't1', type: 'card' }, { id: 't2', type: 'ssn' }], { actor: app, traceId: 'trace-1' });
    box.raiseReads([], { actor: person, traceId: 'trace-nothing' });
    box.raiseReads([{ id: 't3', type: 'card' }], { actor: person, traceId: null });
    box.raiseReads([{ id: 't1', type: 'card' }], { traceId: 'trace-3' });
    box.raiseReads([{ id: 't4', type: 'card' }], { actor: { ...app, name: 'renamed' }, traceId: 'trace-4' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pending = await box.pending(10);
    expect(new Set(pending.map((p) => p.seq)).size).toBe(1);
    const events = pending.map(({ event }) => event);
    expect(events.map(({ type, trace_id, data }) => ({ type, trace_id, data }))).toEqual([
      { type: 'token.read', trace_id: 'trace-1', data: { token: { id: 't1', type: 'card' }, actor: app } },
      { type: 'token.read', trace_id: 'trace-1', data: { token: { id: 't2', type: 'ssn' }, actor: app } },
      { type: 'token.read', trace_id: null, data: { token: { id: 't3', type: 'card' }, actor: person } },
      { type: 'token.read', trace_id: 'trace-3', data: { token: { id: 't1', type: 'card' } } },
      { type: 'token.read', trace_id: 'trace-4', data: { token: { id: 't4', type: 'card' }, actor: { ...app, name: 'renamed' } } },
    ]);
    for (const { timestamp, tenant_id } of events) {
      expect(tenant_id).toBe('tenant-1');
      expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(timestamp)).toBeLessThanOrEqual(Date.now());
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(5);
  });

  it("hands over the reads' events a row holds in an earlier build's shape, one per token, each with its own id", async () => {
    const box = outbox();
    const actor = { id: 'app-1', type: 'application' };
    const groups = [{ type: 'token.read', timestamp: '2026-11-29T10:00:00.000Z', trace_id: 'trace-1', actor, data: [{ token: { id: 't1', type: 'card' } }, { token: { id: 't2', type: 'card' } }] }];
    db.prepare('INSERT INTO event_outbox (event) VALUES (?)').run(JSON.stringify(groups));
    const events = (await box.pending(10)).map(({ event }) => event);
    expect(events.map(({ type, timestamp, trace_id, data }) => ({ type, timestamp, trace_id, data }))).toEqual(
      ['t1', 't2'].map((id) => ({ type: 'token.read', timestamp: '2026-11-29T10:00:00.000Z', trace_id: 'trace-1', data: { token: { id, type: 'card' }, actor } })),
    );
    expect(new Set(events.map((e) => e.id)).size).toBe(2);
  });

  it('wakes its readers once, after the turn that raised', async () => {
    const box = outbox();
    let wakes = 0;
    box.onRaised(() => wakes++);
    box.raise(tokenCreated);
    box.raise(tokenCreated);
    expect(wakes).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(wakes).toBe(1);
  });

  it('reads a subscription written with a colon as the dotted type, and refuses an unknown one', () => {
    expect(eventTypeOf('token:created')).toBe('token.created');
    expect(eventTypeOf('token.created')).toBe('token.created');
    expect(eventTypeOf('token.exploded')).toBeUndefined();
  });
});
