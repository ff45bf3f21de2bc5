import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveFeed, type LiveUpdate } from '../../electron/engine/workbench';
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
    const feed = new LiveFeed(bench.engine.history, () => bench.engine.status());
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    recordRequests(1000);
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    const [{ entries, status }] = updates;
    expect(entries).toHaveLength(200);
    expect(entries[0].path).toBe('/tokens/999');
    expect(entries.at(-1)!.path).toBe('/tokens/800');
    expect(status).toEqual(bench.engine.status());
    stop();
  });

  it('watches the history only while someone listens', () => {
    const history = bench.engine.history;
    const before = history.listenerCount('entry');
    const feed = new LiveFeed(history, () => bench.engine.status());
    const first = feed.subscribe(() => undefined);
    const second = feed.subscribe(() => undefined);
    expect(history.listenerCount('entry')).toBe(before + 1);
    first();
    first();
    expect(history.listenerCount('entry')).toBe(before + 1);
    second();
    expect(history.listenerCount('entry')).toBe(before);
  });
});
