import { create } from 'zustand';
import type { HistoryEntry } from '../../../shared/workbench/contract';

/** The history list shows the latest requests only. */
export const SHOWN_ENTRIES = 100;

interface HistoryState {
  /** Newest first. */
  entries: HistoryEntry[];
  /** The entry the detail panel shows; kept when newer requests push it out of the list. */
  selected: HistoryEntry | null;
  /** Adds entries from a page or a live batch; the two may overlap around a (re)connect. */
  merge(entries: HistoryEntry[]): void;
  select(entry: HistoryEntry | null): void;
}

const newestFirst = (a: HistoryEntry, b: HistoryEntry) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);

export const useHistoryStore = create<HistoryState>()((set) => ({
  entries: [],
  selected: null,
  merge: (incoming) =>
    set(({ entries }) => {
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      for (const entry of incoming) byId.set(entry.id, entry);
      return { entries: [...byId.values()].sort(newestFirst).slice(0, SHOWN_ENTRIES) };
    }),
  select: (selected) => set({ selected }),
}));
