import { create } from 'zustand';
import type { EngineStatus } from '../../../shared/workbench/live-contract';
import { HOSTED_PREFIX } from '../../../shared/workbench/request-draft';

export type Connection = 'connecting' | 'live' | 'lost' | 'failed';

interface EngineState {
  status: EngineStatus | null;
  connection: Connection;
  /** What to tell the user when the connection is not live. */
  problem: string | null;
  connected(status: EngineStatus): void;
  lost(retrying: boolean): void;
  failed(problem: string): void;
}

/** The engine as the GUI last heard from it, and whether it still hears. */
export const useEngineStore = create<EngineState>()((set) => ({
  status: null,
  connection: 'connecting',
  problem: null,
  connected: (status) => set({ status, connection: 'live', problem: null }),
  lost: (retrying) =>
    set({
      connection: 'lost',
      problem: retrying ? 'Lost the connection to the engine; retrying…' : 'The engine closed the connection. Reload the page to reconnect.',
    }),
  failed: (problem) => set({ connection: 'failed', problem }),
}));

/** The prefix of the service's headers (`BT-API-KEY`): the engine's, or the hosted service's (its default) until it has said. */
export const headerPrefix = (): string => useEngineStore.getState().status?.headerPrefix ?? HOSTED_PREFIX;

/** The header prefix, as a component shows it. */
export const useHeaderPrefix = (): string => useEngineStore((state) => state.status?.headerPrefix ?? HOSTED_PREFIX);
