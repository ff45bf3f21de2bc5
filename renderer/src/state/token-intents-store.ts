import { resourceStore } from './resource-store';

/** The live token intents the Tokens page lists: read on a visit, and again when the live road says one changed. */
export const useTokenIntentsStore = resourceStore('listTokenIntents');
