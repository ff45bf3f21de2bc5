import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { Transport } from '../../renderer/src/api/transport';
import { workbenchClient } from '../../renderer/src/api/workbench-client';
import { useClientKeysStore } from '../../renderer/src/state/client-access-stores';
import { NO_FILTER, useHistoryStore } from '../../renderer/src/state/history-store';
import { startLiveSync } from '../../renderer/src/state/live-sync';
import { useTransactionsStore } from '../../renderer/src/state/transactions-store';
import { openLive } from '../support/live-stream';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** The workbench's live sync, as the page runs it, against a real engine over its HTTP routes and live stream. */
let bench: TestEngine;
beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, workbenchRoutes: true });
  useHistoryStore.setState({ entries: [], reachedOldest: false, selected: null, filter: NO_FILTER, listed: NO_FILTER });
  useClientKeysStore.setState({ value: null, problem: null });
  useTransactionsStore.setState({ shown: 'all', transactions: null, next: null, full: false, counts: null, selectedId: null, selected: null, heard: null, pagesAsked: 0 });
});
afterEach(() => bench.stop());

/** The browser's transport, in Node: a POST per call with this run's session, the SSE stream read by openLive. */
function engineTransport(): Transport {
  const session = bench.engine.browserWorkbench!.session;
  return {
    async call(name, request) {
      const reply = await bench.workbench(name, request);
      if (reply.status !== 200) throw new Error(`${name} answered ${reply.status}: ${reply.text}`);
      return reply.body;
    },
    subscribe(_name, onEvent, onLost) {
      let stop = () => undefined as void;
      let stopped = false;
      void openLive(bench.url, `session=${encodeURIComponent(session)}`)
        .then(async (live) => {
          stop = live.close;
          if (stopped) return live.close();
          for (;;) onEvent(await live.next());
        })
        .catch(() => stopped || onLost(false));
      return () => {
        stopped = true;
        stop();
      };
    },
  };
}

/**
 * Recorded as the engine's server records a request, synchronously: all of them fall in one batch of the feed. The
 * one at `midway`, if given, is recorded halfway through, among those the batch leaves out.
 */
function recordBurst(count: number, midway?: { method: string; path: string; status: number }) {
  for (let i = 0; i < count; i++) {
    const request = i === count / 2 && midway ? midway : { method: 'GET', path: `/tokens/burst-${i}`, status: 404 };
    bench.engine.history.record({ kind: 'api', ...request, duration_ms: 1, application_id: null, trace_id: null, request_headers: [] });
  }
}

const workbench = () => workbenchClient(engineTransport(), () => undefined);
const listedIds = () => useHistoryStore.getState().entries.map((entry) => entry.id);

it('after a burst past a live batch’s cap, History lists the engine’s newest requests with no hole, the one on show kept', async () => {
  const stopSync = await startLiveSync(workbench());
  for (let i = 0; i < 30; i++) expect((await bench.call('GET', `/tokens/before-${i}`, { key: bench.privateKey })).status).toBe(404);
  await vi.waitFor(() => expect(listedIds()).toHaveLength(30));
  const onShow = useHistoryStore.getState().entries[29];
  useHistoryStore.getState().select(onShow);

  recordBurst(1000);
  // Every listed entry is the engine's, in its order, from its newest on: a list with a hole below the batch's newest
  // 200 would hold the 30 from before the burst where the engine has the burst's older entries.
  await vi.waitFor(async () => {
    const ids = listedIds();
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual((await bench.engine.history.list(ids.length)).map((entry) => entry.id));
  }, 5_000);
  expect(useHistoryStore.getState()).toMatchObject({ reachedOldest: false, selected: { id: onShow.id } });
  stopSync();
});

it('a list already read (Settings’ client keys) reads itself again after a batch that left out the entry of its change', async () => {
  const api = workbench();
  const stopSync = await startLiveSync(api);
  await useClientKeysStore.refresh(api);
  expect(useClientKeysStore.getState().value).toEqual([]);
  // Made as a client's POST /keys makes it, which the list hears of only as that request's entry: left out of the batch.
  const { key } = await bench.engine.workbench.createClientKey({});
  recordBurst(1000, { method: 'POST', path: '/keys', status: 201 });
  await vi.waitFor(() => expect(useClientKeysStore.getState().value).toEqual([key]), 5_000);
  stopSync();
});

it('after a wipe, Transactions lists what the engine keeps: the open transaction on show is gone, not left open', async () => {
  const api = workbench();
  const stopSync = await startLiveSync(api);
  const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
  await vi.waitFor(() => expect(useTransactionsStore.getState().transactions?.map((transaction) => transaction.id)).toEqual([opened.body.id]));
  useTransactionsStore.getState().select(opened.body.id);
  // The wipe rolls it back and deletes it in one step, naming no transaction: only a list read again drops it.
  await api.wipeVault({ confirm: 'wipe' });
  await vi.waitFor(() => expect(useTransactionsStore.getState()).toMatchObject({ transactions: [], selected: null, counts: { kept: 0 } }), 5_000);
  stopSync();
});
