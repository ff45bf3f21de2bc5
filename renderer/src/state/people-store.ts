import { resourceStore } from './resource-store';

/** The named workbench credentials, as Settings lists them: never a secret. */
export const useCredentialsStore = resourceStore('listCredentials');
