import { nowIso } from '../../clock';
import { ApiProblem } from '../../server/problem';

/** Where a definition served from the proxies folder comes from. */
export interface FileOrigin {
  path: string;
  folder: string;
}

/**
 * What a proxy or reactor served from a file carries besides its definition: live as the file says (what cannot go
 * live is a problem of the file), created when its path was first loaded, changed by its file.
 */
export function servedFromFile(path: string, identity: { id: string; created_at: string }, reloaded: boolean) {
  return {
    id: identity.id,
    state: 'active' as const,
    requested: null,
    live: true,
    created_by: `file:${path}`,
    created_at: identity.created_at,
    modified_by: reloaded ? `file:${path}` : null,
    modified_at: reloaded ? nowIso() : null,
  };
}

/** The item the API may change; a 409 for a proxy or reactor whose file is the one place to change it. */
export function writable<T extends { id: string; file?: FileOrigin | null }>(noun: 'Proxy' | 'Reactor', item: T): T {
  if (!item.file) return item;
  throw new ApiProblem(
    409,
    `${noun} ${item.id} is loaded from the file ${item.file.path} in the proxies folder (${item.file.folder}): edit the file to change it, or remove the file to delete it`,
  );
}
