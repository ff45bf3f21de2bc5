import { create } from 'zustand';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import type { SecretInfo } from '../../../shared/workbench/secret-contract';

interface SecretsState {
  /** Null until the engine has listed them. Names and uses only: a value is never kept here. */
  secrets: SecretInfo[] | null;
  loaded(secrets: SecretInfo[]): void;
}

/** The secrets saved requests refer to, as Settings lists them. */
export const useSecretsStore = create<SecretsState>()((set) => ({
  secrets: null,
  loaded: (secrets) => set({ secrets }),
}));

/** Lists them again: on a visit to Settings, and after one was set, replaced or deleted there. */
export async function refreshSecrets(api: WorkbenchApi): Promise<void> {
  useSecretsStore.getState().loaded(await api.listSecrets());
}
