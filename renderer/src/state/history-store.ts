import { create } from 'zustand';
import type { HistoryEntry } from '../../../shared/workbench/history-contract';
import { historyFilterSchema, type HistoryFilter } from '../../../shared/workbench/history-filter';
import { matchesHistoryFilter } from '../../../shared/workbench/history-match';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useEngineStore } from './engine-store';

/** Entries per page: the first load, each reconnect, each filter, and each "Load older". */
export const PAGE_SIZE = 100;
/** The most entries the list keeps: live ones push the oldest out (the engine keeps them; they are not lost). */
export const MAX_LISTED = 500;

export const NO_FILTER: HistoryFilter = historyFilterSchema.parse({});

/** Where the boxes that scroll History's list and its open request were left (a narrow window scrolls the page). */
export type HistoryScroll = Record<'list' | 'entry', number>;

interface HistoryState {
  /**
   * The filter on screen: what the controls show, the address says and an export sends. It outlives the page, so
   * coming back to History shows it at once.
   */
  filter: HistoryFilter;
  /** The filter `entries` were listed under: the engine filters everything it keeps; live entries are held to it. */
  listed: HistoryFilter;
  /** Newest first. */
  entries: HistoryEntry[];
  /** Whether the oldest listed entry is the engine's oldest: a page came back short, and nothing was pushed out since. */
  reachedOldest: boolean;
  /** The entry the detail panel shows; kept when newer requests push it out of the list. */
  selected: HistoryEntry | null;
  /** An entry whose body History cut, waiting for the user to confirm that its kept part is what to replay. */
  confirmingReplay: string | null;
  /** Whether the filters beyond the first row are open. */
  moreFilters: boolean;
  scroll: HistoryScroll;
  /** The kept answer of the entry on show, as read from the engine (lists never carry it): its masked text, or why it could not be read. */
  keptAnswer: { entryId: string; text: string | null; problem: string | null } | null;
  /** Puts another filter on screen; its entries follow with `replace`. */
  ask(filter: HistoryFilter): void;
  /** Adds the entries of a live batch that the filter lets through. */
  mergeLive(entries: HistoryEntry[]): void;
  /**
   * Adds a page the engine listed for `filter` (the latest on a (re)connect, or an older one), whose length says
   * whether older entries remain; it may overlap the live entries. A page for a filter no longer shown is dropped.
   */
  mergePage(entries: HistoryEntry[], filter: HistoryFilter): void;
  /** Shows the first page listed under `filter` in place of the list. */
  replace(filter: HistoryFilter, page: HistoryEntry[]): void;
  /**
   * Shows the first page read again after the engine cleared or trimmed its history, in place of the list; the
   * selected entry stays only if it is still listed.
   */
  reread(page: HistoryEntry[], filter: HistoryFilter): void;
  /**
   * Closes the hole a live batch left (its older entries left out): the first page read since, listed for `filter`,
   * with the entries heard since it was read; older ones are let go, as they may sit below the hole ("Load older"
   * pages back to them). The selected entry stays.
   */
  refilled(page: HistoryEntry[], filter: HistoryFilter): void;
  select(entry: HistoryEntry | null): void;
  confirmReplay(entryId: string | null): void;
  showMoreFilters(open: boolean): void;
  keepScroll(part: keyof HistoryScroll, top: number): void;
}

/** Entry ids are time-ordered (UUIDv7, made in the order the engine recorded them): they sort as the engine lists. */
const newestFirst = (a: HistoryEntry, b: HistoryEntry) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The list with `incoming` added by id, newest first, at most MAX_LISTED. */
function merged({ entries, reachedOldest }: HistoryState, incoming: HistoryEntry[], isPage: boolean): Partial<HistoryState> {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  for (const entry of incoming) byId.set(entry.id, entry);
  const all = [...byId.values()].sort(newestFirst);
  const pushedOut = all.length > MAX_LISTED;
  return {
    entries: pushedOut ? all.slice(0, MAX_LISTED) : all,
    reachedOldest: !pushedOut && (reachedOldest || (isPage && incoming.length < PAGE_SIZE)),
  };
}

export const useHistoryStore = create<HistoryState>()((set) => ({
  filter: NO_FILTER,
  listed: NO_FILTER,
  entries: [],
  reachedOldest: false,
  selected: null,
  confirmingReplay: null,
  moreFilters: false,
  scroll: { list: 0, entry: 0 },
  keptAnswer: null,
  ask: (filter) => set({ filter }),
  mergeLive: (incoming) => set((state) => merged(state, incoming.filter((entry) => matchesHistoryFilter(entry, state.listed)), false)),
  mergePage: (page, filter) => set((state) => (state.listed === filter ? merged(state, page, true) : {})),
  replace: (listed, page) => set({ listed, entries: page, reachedOldest: page.length < PAGE_SIZE }),
  reread: (page, filter) =>
    set((state) =>
      state.listed === filter
        ? { entries: page, reachedOldest: page.length < PAGE_SIZE, selected: page.find((entry) => entry.id === state.selected?.id) ?? null }
        : {},
    ),
  refilled: (page, filter) =>
    set((state) => {
      if (state.listed !== filter) return {};
      // Newer than the page's oldest: heard live since the read, or another replica's that reached the history after it.
      const oldest = page.length < PAGE_SIZE ? undefined : page[page.length - 1].id;
      const since = oldest === undefined ? state.entries : state.entries.filter((entry) => entry.id > oldest);
      return merged({ ...state, entries: since, reachedOldest: false }, page, true);
    }),
  select: (selected) => set({ selected, confirmingReplay: null }),
  confirmReplay: (confirmingReplay) => set({ confirmingReplay }),
  showMoreFilters: (moreFilters) => set({ moreFilters }),
  keepScroll: (part, top) => set((state) => ({ scroll: { ...state.scroll, [part]: top } })),
}));

/** The number of the latest list asked for: only its answer is shown, so a quick change of filter never shows an older one's. */
let latestList = 0;

/** Lists the first page under `filter` in place of the list; a failure is the engine's (the shell says it). */
export function listHistoryFor(api: WorkbenchApi, filter: HistoryFilter): Promise<void> {
  const request = ++latestList;
  return api.listHistory({ limit: PAGE_SIZE, filter }).then(
    (page) => {
      if (request === latestList) useHistoryStore.getState().replace(filter, page);
    },
    (error: unknown) => useEngineStore.getState().failed(messageOf(error)),
  );
}

/** Reads an entry's kept answer for the detail panel; an answer for an entry no longer on show is dropped. */
export function readKeptAnswer(api: WorkbenchApi, entryId: string): Promise<void> {
  useHistoryStore.setState({ keptAnswer: { entryId, text: null, problem: null } });
  const settle = (text: string | null, problem: string | null) =>
    useHistoryStore.setState((state) => (state.keptAnswer?.entryId === entryId ? { keptAnswer: { entryId, text, problem } } : {}));
  return api.getHistoryAnswer({ id: entryId }).then(
    (answer) => settle(answer.text, null),
    (error: unknown) => settle(null, `The kept answer could not be read: ${messageOf(error)}. Select the request again to retry.`),
  );
}
