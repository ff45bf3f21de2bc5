import { create } from 'zustand';
import type { ApplicationDetail, PermissionInfo } from '../../../shared/workbench/contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { refreshApplications } from './applications-store';

interface ApplicationDetailsState {
  /** Null until the engine has listed them. */
  applications: ApplicationDetail[] | null;
  permissions: PermissionInfo[];
  loaded(applications: ApplicationDetail[], permissions: PermissionInfo[]): void;
}

/** The applications with their permissions, rules and keys, as Settings edits them. */
export const useApplicationDetailsStore = create<ApplicationDetailsState>()((set) => ({
  applications: null,
  permissions: [],
  loaded: (applications, permissions) => set({ applications, permissions }),
}));

/** Lists them again after a change, and the pickers' list with them (the Composer's "Send as"). */
export async function refreshApplicationDetails(api: WorkbenchApi): Promise<void> {
  const [applications, permissions] = await Promise.all([api.listApplicationDetails(), api.listPermissions()]);
  useApplicationDetailsStore.getState().loaded(applications, permissions);
  await refreshApplications(api);
}
