import { create } from 'zustand';
import type { HistoryEntry } from '../../../shared/workbench/contract';

/** The placeholder shows the latest requests only. */
export const SHOWN_ENTRIES = 100;

interface HistoryState {
  /** Newest first. */
  entries: HistoryEntry[];
  /** Adds entries from a page or a live batch; the two may overlap around a (re)connect. */
  merge(entries: HistoryEntry[]): void;
}

const newestFirst = (a: HistoryEntry, b: HistoryEntry) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);

export const useHistoryStore = create<HistoryState>()((set) => ({
  entries: [],
  merge: (incoming) =>
    set(({ entries }) => {
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      for (const entry of incoming) byId.set(entry.id, entry);
      return { entries: [...byId.values()].sort(newestFirst).slice(0, SHOWN_ENTRIES) };
    }),
}));
