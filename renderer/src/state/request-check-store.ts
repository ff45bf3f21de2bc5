import { create } from 'zustand';
import type { RequestCheck } from '../../../shared/workbench/composer-contract';

/** The engine's latest flags on the request being composed, and the body they were made for. */
export interface CheckedRequest {
  body: string | null;
  result: RequestCheck;
}

interface RequestCheckState {
  /** Null while there is nothing to check (no destination yet) or no answer yet. */
  checked: CheckedRequest | null;
  problem: string | null;
  settled(checked: CheckedRequest | null): void;
  failed(problem: string): void;
}

export const useRequestCheckStore = create<RequestCheckState>()((set) => ({
  checked: null,
  problem: null,
  settled: (checked) => set({ checked, problem: null }),
  failed: (problem) => set({ problem }),
}));
