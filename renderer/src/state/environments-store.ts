import { create } from 'zustand';
import type { EnvironmentsView } from '../../../shared/workbench/environment-contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';

interface EnvironmentsState {
  /** Null until the engine has listed them. A secret variable's value is never here. */
  view: EnvironmentsView | null;
  problem: string | null;
  loaded(view: EnvironmentsView): void;
  failed(problem: string): void;
}

/** The environments beside the saved requests, and the one requests are sent with. */
export const useEnvironmentsStore = create<EnvironmentsState>()((set) => ({
  view: null,
  problem: null,
  loaded: (view) => set({ view, problem: null }),
  failed: (problem) => set({ problem }),
}));

/** Lists them again: on a visit, after a change, and when the folder changed on disk (a teammate's pull). */
export function refreshEnvironments(api: WorkbenchApi): Promise<void> {
  const { loaded, failed } = useEnvironmentsStore.getState();
  return api.listEnvironments().then(loaded, (error: unknown) => failed(messageOf(error)));
}
