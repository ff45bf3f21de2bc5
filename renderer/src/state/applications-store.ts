import { useEffect } from 'react';
import { create } from 'zustand';
import type { ApplicationChoice } from '../../../shared/workbench/contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useWorkbenchApi } from '../api/workbench-api-context';

interface ApplicationsState {
  /** Null until the engine has listed them. */
  applications: ApplicationChoice[] | null;
  problem: string | null;
  loaded(applications: ApplicationChoice[]): void;
  /** One application changed (its workbench key made or revoked). */
  updated(application: ApplicationChoice): void;
  failed(problem: string): void;
}

/** The local engine's applications, as the pages pick one to act as. */
export const useApplicationsStore = create<ApplicationsState>()((set) => ({
  applications: null,
  problem: null,
  loaded: (applications) => set({ applications, problem: null }),
  updated: (application) =>
    set(({ applications }) => ({ applications: applications?.map((known) => (known.id === application.id ? application : known)) ?? null })),
  failed: (problem) => set({ problem }),
}));

/** The application to act as: the chosen one while it exists, else the first private one (the usual back end). */
export function applicationToUse(applications: readonly ApplicationChoice[] | null, chosen: string | null): ApplicationChoice | null {
  if (!applications) return null;
  return applications.find((app) => app.id === chosen) ?? applications.find((app) => app.type === 'private') ?? applications[0] ?? null;
}

/** Lists the applications again: on a page's visit, and after the workbench made or changed one. */
export function refreshApplications(api: WorkbenchApi): Promise<void> {
  const { loaded, failed } = useApplicationsStore.getState();
  return api.listApplications().then(loaded, (error: unknown) => failed(messageOf(error)));
}

/** Lists the applications once per visit to the page that calls it. */
export function useApplicationList(): void {
  const api = useWorkbenchApi();
  useEffect(() => {
    void refreshApplications(api);
  }, [api]);
}

/**
 * An application's name by id, from the applications the workbench lists; one deleted since (or not listed yet) by its
 * id, cut to its first `idLength` characters where space is short.
 */
export function useApplicationName(idLength?: number): (id: string) => string {
  const applications = useApplicationsStore((state) => state.applications);
  return (id) => applications?.find((application) => application.id === id)?.name ?? id.slice(0, idLength);
}
