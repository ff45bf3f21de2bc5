import { resourceStore } from './resource-store';

/** The pre-configured proxies, as the Proxies page lists and edits them: listed on a visit, and after each change. */
export const useProxiesStore = resourceStore('listProxies');
