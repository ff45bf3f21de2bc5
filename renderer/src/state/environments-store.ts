import { resourceStore } from './resource-store';

/**
 * The environments beside the saved requests, and the one requests are sent with (a secret variable's value is never
 * here): listed on a visit, after a change, and when the folder changed on disk (a teammate's pull).
 */
export const useEnvironmentsStore = resourceStore('listEnvironments');
