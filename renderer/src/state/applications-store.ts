import type { ApplicationChoice } from '../../../shared/workbench/application-contract';
import { resourceStore } from './resource-store';

/** The local engine's applications, as the pages pick one to act as: listed on a page's visit, and after the workbench made or changed one. */
export const useApplicationsStore = resourceStore('listApplications');

/** One application changed (its workbench key made or revoked). */
export function applicationUpdated(application: ApplicationChoice): void {
  useApplicationsStore.setState(({ value }) => ({ value: value?.map((known) => (known.id === application.id ? application : known)) ?? null }));
}

/** The application to act as: the chosen one while it exists, else the first private one (the usual back end). */
export function applicationToUse(applications: readonly ApplicationChoice[] | null, chosen: string | null): ApplicationChoice | null {
  if (!applications) return null;
  return applications.find((app) => app.id === chosen) ?? applications.find((app) => app.type === 'private') ?? applications[0] ?? null;
}

/**
 * An application's name by id, from the applications the workbench lists; one deleted since (or not listed yet) by its
 * id, cut to its first `idLength` characters where space is short.
 */
export function useApplicationName(idLength?: number): (id: string) => string {
  const applications = useApplicationsStore((state) => state.value);
  return (id) => applications?.find((application) => application.id === id)?.name ?? id.slice(0, idLength);
}
