import { create } from 'zustand';
import type { Welcome } from '../../../shared/workbench/vault-contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';

interface WelcomeState {
  /** A new vault's first keys, while the welcome view shows them; null otherwise. */
  keys: Welcome['keys'];
  shown(keys: NonNullable<Welcome['keys']>): void;
  /** The user has saved them: the page forgets them. */
  done(): void;
}

/** The welcome view's keys: in this page's memory only while it shows them, never stored. */
export const useWelcomeStore = create<WelcomeState>()((set) => ({
  keys: null,
  shown: (keys) => set({ keys }),
  done: () => set({ keys: null }),
}));

/**
 * Asks the engine whether a new vault's keys wait to be shown (at start, and after a wipe). The engine gives them once,
 * so this runs once per occasion, never from a component that may mount twice.
 */
export async function checkWelcome(api: WorkbenchApi): Promise<void> {
  const { keys } = await api.takeWelcome();
  if (keys) useWelcomeStore.getState().shown(keys);
}
