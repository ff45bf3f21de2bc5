import { resourceStore } from './resource-store';

/** The secrets saved requests refer to, as Settings lists them: names and uses only, a value is never kept here. */
export const useSecretsStore = resourceStore('listSecrets');
