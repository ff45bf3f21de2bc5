import { useEffect } from 'react';
import { create } from 'zustand';
import type { RemoteTarget } from '../../../shared/workbench/composer-contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useWorkbenchApi } from '../api/workbench-api-context';

interface RemoteTargetsState {
  /** Null until the engine has listed them. */
  targets: RemoteTarget[] | null;
  problem: string | null;
  loaded(targets: RemoteTarget[]): void;
  failed(problem: string): void;
}

/** The remote services the Composer may send to instead of this engine; their keys stay in the engine. */
export const useRemoteTargetsStore = create<RemoteTargetsState>()((set) => ({
  targets: null,
  problem: null,
  loaded: (targets) => set({ targets, problem: null }),
  failed: (problem) => set({ problem }),
}));

/** The remote target chosen, while it exists; null sends to this engine. */
export function remoteTargetToUse(targets: readonly RemoteTarget[] | null, chosen: string | null): RemoteTarget | null {
  return (chosen !== null && targets?.find((target) => target.id === chosen)) || null;
}

/** Lists the remote targets again: on the Composer's visit, and after one was added or deleted. */
export function refreshRemoteTargets(api: WorkbenchApi): Promise<void> {
  const { loaded, failed } = useRemoteTargetsStore.getState();
  return api.listRemoteTargets().then(loaded, (error: unknown) => failed(messageOf(error)));
}

/** Lists the remote targets once per visit to the page that calls it. */
export function useRemoteTargetList(): void {
  const api = useWorkbenchApi();
  useEffect(() => {
    void refreshRemoteTargets(api);
  }, [api]);
}
