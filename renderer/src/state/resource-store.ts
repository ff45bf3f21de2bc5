import { useEffect } from 'react';
import { create } from 'zustand';
import type { CallName, Reply, WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useWorkbenchApi } from '../api/workbench-api-context';

/** A method that asks nothing (every request field optional): what it answers is a resource the pages show whole. */
export type ResourceName = { [K in CallName]: WorkbenchApi[K] extends () => Promise<unknown> ? K : never }[CallName];

export interface ResourceState<V> {
  /** Null until the engine has answered. */
  value: V | null;
  /** Why the last read failed; null once one succeeds. */
  problem: string | null;
  /** The resource as it is now: read, or answered by a change the page made (a change's reply is the resource). */
  loaded(value: V): void;
  failed(problem: string): void;
}

/**
 * A store holding one method's answer, with `refresh` (read it again: on a visit, after a change) and `useRefreshed`
 * (read it once per visit to the component that calls it). A failed read is kept as `problem`, never thrown.
 */
export function resourceStore<K extends ResourceName>(method: K) {
  const useResource = create<ResourceState<Reply<K>>>()((set) => ({
    value: null,
    problem: null,
    loaded: (value) => set({ value, problem: null }),
    failed: (problem) => set({ problem }),
  }));
  const refresh = (api: WorkbenchApi): Promise<void> => {
    const { loaded, failed } = useResource.getState();
    // Every ResourceName's call takes no argument; TypeScript cannot see that through the generic index.
    const call = api[method] as () => Promise<Reply<K>>;
    return call().then(loaded, (error: unknown) => failed(messageOf(error)));
  };
  const useRefreshed = (): void => {
    const api = useWorkbenchApi();
    useEffect(() => {
      void refresh(api);
    }, [api]);
  };
  return Object.assign(useResource, { refresh, useRefreshed });
}
