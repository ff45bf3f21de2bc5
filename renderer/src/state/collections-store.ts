import { create } from 'zustand';
import type { CollectionsView } from '../../../shared/workbench/contract';

interface CollectionsState {
  /** Null until the engine has listed them. */
  view: CollectionsView | null;
  problem: string | null;
  /** The folder as it is now: listed, saved to, or changed on disk (the live feed carries that). */
  loaded(view: CollectionsView): void;
  failed(problem: string): void;
}

/** The saved requests: collections in a folder, a file per request. */
export const useCollectionsStore = create<CollectionsState>()((set) => ({
  view: null,
  problem: null,
  loaded: (view) => set({ view, problem: null }),
  failed: (problem) => set({ problem }),
}));
