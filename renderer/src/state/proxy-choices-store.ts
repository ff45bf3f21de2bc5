import { resourceStore } from './resource-store';

/** The pre-configured proxies the Composer may send through, by name: listed on each visit to the Composer. */
export const useProxyChoicesStore = resourceStore('listProxyChoices');
