import { resourceStore } from './resource-store';

/** The reactors, as the Reactors page lists and edits them: listed on a visit, after each change, and on a client's. */
export const useReactorsStore = resourceStore('listReactors');
