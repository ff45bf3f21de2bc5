import type { CollectionsView, SavedRequest } from '../../../shared/workbench/collection-contract';
import { resourceStore } from './resource-store';

/** The saved requests: collections in a folder, a file per request; `loaded` as listed, saved to, or changed on disk (the live feed carries that). */
export const useCollectionsStore = resourceStore('listCollections');

/** The request saved at a place, as the folder holds it now; null when it is not there (deleted, or not a request). */
export function savedRequestAt(view: CollectionsView | null, place: { collection: string; name: string } | null): SavedRequest | null {
  if (!view || !place) return null;
  return view.collections.find((c) => c.name === place.collection)?.requests.find((r) => r.name === place.name)?.request ?? null;
}

/**
 * Whether two requests are the same (key order aside: both come from the same shape). The body, which may be large,
 * is compared as it is rather than serialized: the tab strip asks this on every keystroke.
 */
export const sameRequest = (a: SavedRequest, b: SavedRequest) => a.body === b.body && JSON.stringify({ ...a, body: '' }) === JSON.stringify({ ...b, body: '' });

/** Whether a request differs from the one saved at its place. */
export const changedSinceSaved = (draft: SavedRequest, saved: SavedRequest | null) => saved === null || !sameRequest(draft, saved);
