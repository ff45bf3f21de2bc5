import type { PermissionInfo } from '../../../shared/workbench/application-contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { useApplicationsStore } from './applications-store';
import { resourceStore } from './resource-store';

/** The applications with their permissions, rules and keys, as Settings edits them. */
export const useApplicationDetailsStore = resourceStore('listApplicationDetails');
/** The permissions each type of application may hold. */
export const usePermissionsStore = resourceStore('listPermissions');

/** Lists them again after a change, and the pickers' list with them (the Composer's "Send as"). */
export async function refreshApplicationDetails(api: WorkbenchApi): Promise<void> {
  await Promise.all([useApplicationDetailsStore.refresh(api), usePermissionsStore.refresh(api), useApplicationsStore.refresh(api)]);
}

const NO_PERMISSIONS: readonly PermissionInfo[] = [];

/** The permissions, none until listed. */
export const usePermissions = (): readonly PermissionInfo[] => usePermissionsStore((state) => state.value ?? NO_PERMISSIONS);

/** Lists them, and the pickers' list, once per visit to the page that calls it. */
export function useApplicationDetailsRefreshed(): void {
  useApplicationDetailsStore.useRefreshed();
  usePermissionsStore.useRefreshed();
  useApplicationsStore.useRefreshed();
}

/** Why the applications or the permissions could not be listed. */
export function useApplicationDetailsProblem(): string | null {
  const details = useApplicationDetailsStore((state) => state.problem);
  const permissions = usePermissionsStore((state) => state.problem);
  return details ?? permissions;
}
