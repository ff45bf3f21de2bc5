import type { CallName, MethodName, StreamName } from './methods';
import type { PageId } from './pages';

/**
 * How the workbench's methods travel: each name in the method table gives its IPC channel (Electron) and its HTTP
 * path (the browser), and a failed call arrives as the same problem over both.
 */

/** `ipcMain.handle` channel of a call; for a stream, the channel its events are pushed on. */
export const ipcChannel = (name: MethodName) => `workbench:${name}`;
/** The invoke channels that start and stop a window's subscription to a stream. */
export const ipcStreamControl = (name: StreamName, action: 'start' | 'stop') => `workbench:${name}:${action}`;

/** Engine HTTP paths for the browser-served workbench (same origin as the API). */
export const WORKBENCH_PATHS = { ui: '/ui/', api: '/_workbench/' } as const;
/** A call is POSTed here with its request as JSON; a stream is read here as Server-Sent Events. */
export const httpPath = (name: MethodName) => `${WORKBENCH_PATHS.api}${name}`;

/** Per-run secret of the HTTP workbench: a header on calls, a query parameter on streams (EventSource sends no headers). */
export const SESSION_HEADER = 'X-Tokenbench-Session';
export const SESSION_QUERY = 'session';

/**
 * A launch link (`/ui/#launch=<code>`) is what `npm start` opens a browser with: a browser's command line can be read
 * by other local users, so it carries a one-time code, which the page trades for the session with a POST to
 * `session` (`{"code"}` → `{"session"}`). Whoever holds the owner's session may ask `link` for a new link. A person
 * signs in with a workbench credential at `signIn` (`{"credential"}` → `{"session", "name"}`), which gives a session
 * of their own (name null: the owner's secret was given).
 */
export const LAUNCH_QUERY = 'launch';
export const LAUNCH_PATHS = { session: '/_workbench-launch/session', link: '/_workbench-launch/link', signIn: '/_workbench-launch/sign-in' } as const;
export const launchUrl = (baseUrl: string, code: string) => `${baseUrl}${WORKBENCH_PATHS.ui}#${LAUNCH_QUERY}=${code}`;
/**
 * The workbench page a call is made on, for the audit trail: a header beside the session over HTTP, the invoke's
 * second argument over IPC. Optional: a call without it is the workbench's, on no page in particular.
 */
export const PAGE_HEADER = 'X-Tokenbench-Page';

/** The one object the preload puts on `window`: one function per method of the table. */
export const BRIDGE_NAME = 'tokenbench';

/**
 * What only the desktop app offers the page, beside the method table: one narrow call, the system's folder picker.
 * It answers a path the user chose (or null), and changes nothing: the page hands the path to setCollectionsFolder
 * or setProxiesFolder.
 */
export const DESKTOP_BRIDGE_NAME = 'tokenbenchDesktop';
export const PICK_FOLDER_CHANNEL = 'desktop:pickFolder';
/** What a folder is picked for: the saved requests' folder (the default), or the proxies folder. */
export type FolderPurpose = 'collections' | 'proxies';
export interface DesktopBridge {
  pickFolder(purpose?: FolderPurpose): Promise<string | null>;
}

/** Why a call failed, in the engine's problem-details shape, whichever transport carried it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: Record<string, string[]>;
}

/** What an IPC call answers: Electron would turn a thrown error into a bare message, so failures travel as data. */
export type IpcOutcome = { ok: true; value: unknown } | { ok: false; problem: Problem };

/**
 * The preload bridge, as the preload builds it and the page uses it: per call a function answering an IpcOutcome
 * (given the page it is made on, when there is one), per stream a subscription whose listener also hears
 * `{type: 'lost'}` when the main process refuses it.
 */
export type WorkbenchBridge = { [K in CallName]: (request?: unknown, page?: PageId) => Promise<IpcOutcome> } & {
  [S in StreamName]: (listener: (event: unknown) => void) => () => void;
};

/** A failed workbench call, as the page sees it: the problem's detail is the message the user reads. */
export class WorkbenchError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
    this.name = 'WorkbenchError';
  }
}
