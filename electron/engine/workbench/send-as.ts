import type { CollectionsView } from '../../../shared/workbench/collection-contract';
import type { ApplicationStore } from '../access/application-store';

/**
 * The collections with the application each saved request names (by name, as its file keeps it) found in this vault:
 * the first of that name, or none, which the Composer says when the request is opened.
 */
export function withSendAs(view: CollectionsView, applications: ApplicationStore): CollectionsView {
  const ids = new Map<string, string | null>();
  const idOf = (name: string) => {
    if (!ids.has(name)) ids.set(name, applications.findByName(name)[0]?.id ?? null);
    return ids.get(name)!;
  };
  return {
    ...view,
    collections: view.collections.map((collection) => ({
      ...collection,
      requests: collection.requests.map((entry) => (entry.send_as ? { ...entry, send_as: { name: entry.send_as.name, application_id: idOf(entry.send_as.name) } } : entry)),
    })),
  };
}
