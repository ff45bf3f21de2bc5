import { resourceStore } from './resource-store';

/** The live client encryption keys, as Settings lists them: never a key's halves. */
export const useClientKeysStore = resourceStore('listClientKeys');

/** The live sessions, as Settings lists them: never a session's key or nonce. */
export const useSessionsStore = resourceStore('listSessions');
