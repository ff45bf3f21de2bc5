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

/** The 409 an API write gets for a proxy or reactor whose file is the one place to change it. */
export const fileOwned = (noun: 'Proxy' | 'Reactor', id: string, file: FileOrigin) =>
  new ApiProblem(409, `${noun} ${id} is loaded from the file ${file.path} in the proxies folder (${file.folder}): edit the file to change it, or remove the file to delete it`);
