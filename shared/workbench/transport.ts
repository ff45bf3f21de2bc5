/**
 * Names both transports of the workbench contract use. No runtime imports: the sandboxed preload bundles this
 * file and may require nothing but `electron`.
 */

/** `ipcMain.handle` channels (renderer → main) and the one push channel (main → renderer). */
export const IPC_CHANNELS = {
  getStatus: 'workbench:get-status',
  listHistory: 'workbench:list-history',
  liveStart: 'workbench:live-start',
  liveStop: 'workbench:live-stop',
  revealOutbound: 'workbench:reveal-outbound',
  live: 'workbench:live',
} as const;

export type InvokeChannel = Exclude<(typeof IPC_CHANNELS)[keyof typeof IPC_CHANNELS], typeof IPC_CHANNELS.live>;

/** Engine HTTP paths for the browser-served workbench (same origin as the API). */
export const WORKBENCH_PATHS = {
  ui: '/ui/',
  api: '/_workbench/',
  status: '/_workbench/status',
  history: '/_workbench/history',
  live: '/_workbench/live',
  reveal: '/_workbench/reveal',
} as const;

/** Per-run secret of the HTTP workbench: a header on fetches, a query parameter on the EventSource (it sends no headers). */
export const SESSION_HEADER = 'X-Tokenbench-Session';
export const SESSION_QUERY = 'session';

/** The one object the preload puts on `window`. */
export const BRIDGE_NAME = 'tokenbench';
