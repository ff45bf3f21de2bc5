import { create } from 'zustand';
import type { RequestCheck } from '../../../shared/workbench/composer-contract';

/** The engine's latest flags on the request being composed, and the body they were made for. */
export interface CheckedRequest {
  body: string | null;
  result: RequestCheck;
}

/** Why the latest check has no flags to show. */
export interface CheckProblem {
  message: string;
  /** The body is over the engine's body limit (a 413): the check's answer, not a failure to check. */
  overLimit: boolean;
}

interface RequestCheckState {
  /** Null while there is nothing to check (no destination yet) or no answer yet. */
  checked: CheckedRequest | null;
  /** The latest check failed: its flags are gone with it, as they were for another request. */
  problem: CheckProblem | null;
  settled(checked: CheckedRequest | null): void;
  failed(problem: CheckProblem): void;
}

export const useRequestCheckStore = create<RequestCheckState>()((set) => ({
  checked: null,
  problem: null,
  settled: (checked) => set({ checked, problem: null }),
  failed: (problem) => set({ checked: null, problem }),
}));
