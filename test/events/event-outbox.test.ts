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
