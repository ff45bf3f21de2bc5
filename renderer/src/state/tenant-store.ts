import { resourceStore } from './resource-store';

/** The tenant and its usage report, as Settings shows them. */
export const useTenantStore = resourceStore('getTenant');
