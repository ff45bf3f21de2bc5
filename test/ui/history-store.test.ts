import { historyFilterSchema } from '../../shared/workbench/history-filter';
import { beforeEach, expect, it } from 'vitest';
import type { HistoryEntry } from '../../shared/workbench/history-contract';
import { MAX_LISTED, NO_FILTER, PAGE_SIZE, useHistoryStore } from '../../renderer/src/state/history-store';

/** The workbench's list of requests: pages, live batches, and the cap that keeps a long run's list bounded. */
const entry = (n: number): HistoryEntry => ({
  // Padded, so ids sort as the engine's time-ordered ids do.
  id: `e-${String(n).padStart(4, '0')}`,
  at: new Date(Date.UTC(2026, 10, 25, 0, 0, 0, n)).toISOString(),
  kind: 'api',
  method: 'GET',
  path: `/tokens/${n}`,
  status: 200,
  duration_ms: 1,
  application_id: null,
  trace_id: null,
  request_headers: [],
  proxy: null,
  reactor: null,
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => entry(to - i));

beforeEach(() => useHistoryStore.setState({ entries: [], reachedOldest: false, selected: null, filter: NO_FILTER, listed: NO_FILTER }));

it('knows it has reached the oldest entry only when a page comes back short', () => {
  const { mergePage, mergeLive, filter } = useHistoryStore.getState();
  mergePage(range(51, 150), filter);
  expect(useHistoryStore.getState().reachedOldest).toBe(false);
  mergePage(range(1, 50), filter);
  expect(useHistoryStore.getState()).toMatchObject({ reachedOldest: true });
  expect(useHistoryStore.getState().entries.map((e) => e.id).slice(0, 2)).toEqual(['e-0150', 'e-0149']);
  // A live batch does not change it; a reconnect's full latest page merges without doubling.
  mergeLive([entry(151)]);
  mergePage(range(52, 151).slice(0, PAGE_SIZE), filter);
  expect(useHistoryStore.getState()).toMatchObject({ reachedOldest: true });
  expect(useHistoryStore.getState().entries).toHaveLength(151);
});

it(`keeps at most ${MAX_LISTED} entries, the newest, and then offers older ones again`, () => {
  const { mergePage, mergeLive, filter } = useHistoryStore.getState();
  mergePage(range(1, 40), filter);
  expect(useHistoryStore.getState().reachedOldest).toBe(true);
  mergeLive(range(41, MAX_LISTED + 1));
  const { entries, reachedOldest } = useHistoryStore.getState();
  expect(entries).toHaveLength(MAX_LISTED);
  expect(entries[0].id).toBe(`e-${String(MAX_LISTED + 1).padStart(4, '0')}`);
  expect(entries.at(-1)!.id).toBe('e-0002');
  expect(reachedOldest).toBe(false);
});

it('lets a live entry in only when the filter matches it, and drops a page listed for a filter no longer shown', () => {
  const failedOnly = historyFilterSchema.parse({ view: 'failed' });
  useHistoryStore.getState().replace(failedOnly, []);
  const ok = entry(1);
  const refused = { ...entry(2), status: 404 };
  useHistoryStore.getState().mergeLive([ok, refused]);
  expect(useHistoryStore.getState().entries.map((e) => e.id)).toEqual(['e-0002']);
  // A page asked for before the filter changed arrives late: it must not mix in.
  useHistoryStore.getState().mergePage([entry(3)], historyFilterSchema.parse({}));
  expect(useHistoryStore.getState().entries.map((e) => e.id)).toEqual(['e-0002']);
});

it('after a live batch that left entries out, shows the first page read since and what was heard after it, never a hole', () => {
  const { mergePage, mergeLive, filter } = useHistoryStore.getState();
  mergePage(range(1, 100), filter);
  useHistoryStore.getState().select(entry(7));
  // A burst of 101..1000 whose batch carried only 801..1000; 1001 is heard live while the first page is read.
  mergeLive(range(801, 1000));
  mergeLive([entry(1001)]);
  useHistoryStore.getState().refilled(range(901, 1000), filter);
  const { entries, reachedOldest, selected } = useHistoryStore.getState();
  expect(entries.map((e) => e.id)).toEqual(range(901, 1001).map((e) => e.id));
  // "Load older" pages back from 901, through the burst; the entry on show stays on show.
  expect(reachedOldest).toBe(false);
  expect(selected?.id).toBe('e-0007');
});

it("a refilled page keeps the entries of its own span that it lacks (another replica's, written after it was read)", () => {
  const { mergePage, mergeLive, filter } = useHistoryStore.getState();
  mergePage(range(1, 100), filter);
  mergeLive(range(301, 500));
  const late = entry(450);
  const page = range(400, 500).filter((e) => e.id !== late.id);
  expect(page).toHaveLength(PAGE_SIZE);
  useHistoryStore.getState().refilled(page, filter);
  expect(useHistoryStore.getState().entries.map((e) => e.id)).toEqual(range(400, 500).map((e) => e.id));
  // A page listed for a filter no longer shown changes nothing.
  useHistoryStore.getState().refilled(range(1, 10), historyFilterSchema.parse({ view: 'failed' }));
  expect(useHistoryStore.getState().entries).toHaveLength(101);
});
