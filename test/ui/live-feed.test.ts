import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveFeed, type LiveUpdate } from '../../electron/engine/workbench/live-feed';
import { startTestEngine, type TestEngine } from '../support/test-engine';

let bench: TestEngine;
beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true });
});
afterEach(() => bench.stop());

function recordRequests(count: number) {
  for (let i = 0; i < count; i++) {
    bench.engine.history.record({
      kind: 'api',
      method: 'GET',
      path: `/tokens/${i}`,
      status: 404,
      duration_ms: 1,
      application_id: null,
      trace_id: null,
      request_headers: [],
    });
  }
}

describe('the live feed behind the GUI', () => {
  it('batches a burst, keeping the newest entries first, with the status as of the batch', async () => {
    const feed = new LiveFeed(bench.engine.events, () => bench.engine.status(), () => bench.engine.transactions.counts(), (view) => view);
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    recordRequests(1000);
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    const [{ entries, status }] = updates;
    expect(entries).toHaveLength(200);
    expect(entries[0].path).toBe('/tokens/999');
    expect(entries.at(-1)!.path).toBe('/tokens/800');
    // The 800 older ones are counted, so the reader knows its list would have a hole below these.
    expect(updates[0].entriesLeftOut).toBe(800);
    expect(status).toEqual(bench.engine.status());
    // A batch that carries all of its entries says none was left out.
    recordRequests(3);
    await vi.waitFor(() => expect(updates).toHaveLength(2));
    expect(updates[1]).toMatchObject({ entriesLeftOut: 0 });
    expect(updates[1].entries).toHaveLength(3);
    stop();
  });

  it('hears the engine only while someone listens', () => {
    const { events, history } = bench.engine;
    const before = { request: events.listenerCount('request'), transaction: events.listenerCount('transaction'), entry: history.listenerCount('entry') };
    const feed = new LiveFeed(events, () => bench.engine.status(), () => bench.engine.transactions.counts(), (view) => view);
    const first = feed.subscribe(() => undefined);
    const second = feed.subscribe(() => undefined);
    expect(events.listenerCount('request')).toBe(before.request + 1);
    expect(events.listenerCount('transaction')).toBe(before.transaction + 1);
    expect(history.listenerCount('entry')).toBe(1);
    first();
    first();
    expect(events.listenerCount('request')).toBe(before.request + 1);
    second();
    expect(events.listenerCount('request')).toBe(before.request);
    expect(events.listenerCount('transaction')).toBe(before.transaction);
    // With nobody listening the history shapes no entry for display.
    expect(history.listenerCount('entry')).toBe(before.entry);
  });

  it('carries each changed transaction once per batch, in its latest state', async () => {
    const feed = new LiveFeed(bench.engine.events, () => bench.engine.status(), () => bench.engine.transactions.counts(), (view) => view);
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
    expect((await bench.call('POST', `/transactions/${opened.body.id}/commit`, { key: bench.privateKey })).status).toBe(200);
    await vi.waitFor(() => expect(updates.flatMap((update) => update.transactions)).toContainEqual(expect.objectContaining({ state: 'committed' })));
    const batches = updates.filter((update) => update.transactions.length > 0);
    expect(batches.flatMap((update) => update.transactions.map((t) => t.id))).toEqual(batches.map(() => opened.body.id));
    // Each batch that changed transactions brings their counts as they are after it; the others bring none.
    expect(batches.at(-1)!.transactionCounts).toEqual(await bench.engine.transactions.counts());
    expect(batches.at(-1)!.transactionCounts).toMatchObject({ open: 0, committed: 1 });
    expect(updates.filter((update) => update.transactions.length === 0).every((update) => update.transactionCounts === undefined)).toBe(true);
    stop();
  });

  it('after a wipe tells the reader to list the transactions again, in place of the views it collected before', async () => {
    const feed = new LiveFeed(bench.engine.events, () => bench.engine.status(), () => bench.engine.transactions.counts(), (view) => view);
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
    await vi.waitFor(() => expect(updates.flatMap((update) => update.transactions.map((t) => t.id))).toEqual([opened.body.id]));
    expect(updates.some((update) => update.transactionsReset)).toBe(false);
    // Rolled back and gone in one step: its view would leave it listed, rolled back, after it is gone.
    await bench.engine.workbench.wipeVault({ confirm: 'wipe' });
    await vi.waitFor(() => expect(updates.at(-1)).toMatchObject({ transactionsReset: true, transactions: [] }));
    stop();
  });
});
