import { create } from 'zustand';
import type { HistoryEntry } from '../../../shared/workbench/contract';

/** Entries per page: the first load, each reconnect, and each "Load older". */
export const PAGE_SIZE = 100;
/** The most entries the list keeps: live ones push the oldest out (the engine keeps them; they are not lost). */
export const MAX_LISTED = 500;

interface HistoryState {
  /** Newest first. */
  entries: HistoryEntry[];
  /** Whether the oldest listed entry is the engine's oldest: a page came back short, and nothing was pushed out since. */
  reachedOldest: boolean;
  /** The entry the detail panel shows; kept when newer requests push it out of the list. */
  selected: HistoryEntry | null;
  /**
   * Adds entries from a live batch or, with `isPage`, a page of the engine's history (the latest on a (re)connect, or
   * an older one), whose length says whether older entries remain; the two may overlap around a (re)connect.
   */
  merge(entries: HistoryEntry[], isPage?: boolean): void;
  select(entry: HistoryEntry | null): void;
}

const newestFirst = (a: HistoryEntry, b: HistoryEntry) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);

export const useHistoryStore = create<HistoryState>()((set) => ({
  entries: [],
  reachedOldest: false,
  selected: null,
  merge: (incoming, isPage = false) =>
    set(({ entries, reachedOldest }) => {
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      for (const entry of incoming) byId.set(entry.id, entry);
      const all = [...byId.values()].sort(newestFirst);
      const pushedOut = all.length > MAX_LISTED;
      return {
        entries: pushedOut ? all.slice(0, MAX_LISTED) : all,
        reachedOldest: !pushedOut && (reachedOldest || (isPage && incoming.length < PAGE_SIZE)),
      };
    }),
  select: (selected) => set({ selected }),
}));
