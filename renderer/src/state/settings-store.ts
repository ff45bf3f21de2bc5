import { useEffect } from 'react';
import { create } from 'zustand';
import type { EngineSettings } from '../../../shared/workbench/contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useWorkbenchApi } from '../api/workbench-api-context';

interface SettingsState {
  /** Null until the engine has answered. */
  settings: EngineSettings | null;
  problem: string | null;
  loaded(settings: EngineSettings): void;
  failed(problem: string): void;
}

/** How the engine is set up, as the pages that explain a limit or change one read it. */
export const useSettingsStore = create<SettingsState>()((set) => ({
  settings: null,
  problem: null,
  loaded: (settings) => set({ settings, problem: null }),
  failed: (problem) => set({ problem }),
}));

export function refreshSettings(api: WorkbenchApi): Promise<void> {
  const { loaded, failed } = useSettingsStore.getState();
  return api.getSettings().then(loaded, (error: unknown) => failed(messageOf(error)));
}

/** Reads the settings once per visit to the page that calls it. */
export function useSettings(): EngineSettings | null {
  const api = useWorkbenchApi();
  useEffect(() => {
    void refreshSettings(api);
  }, [api]);
  return useSettingsStore((state) => state.settings);
}
