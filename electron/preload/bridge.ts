import { isCall, METHOD_NAMES, type StreamLost } from '../../shared/workbench/methods';
import { ipcChannel, ipcStreamControl, PICK_FOLDER_CHANNEL, type FolderPurpose, type DesktopBridge, type IpcOutcome, type WorkbenchBridge } from '../../shared/workbench/transport';

/** What the bridge uses of Electron's ipcRenderer. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, message: unknown) => void): unknown;
  off(channel: string, listener: (event: unknown, message: unknown) => void): unknown;
}

/**
 * The one object the renderer sees: the method table over IPC and nothing else of Electron, so the page can reach
 * no channel the table does not name. Messages pass through unchanged: the main process validates requests and the
 * renderer validates replies and events.
 */
export function workbenchBridge(ipc: IpcRendererLike): WorkbenchBridge {
  const entries = METHOD_NAMES.map((name) => {
    if (isCall(name)) return [name, (request: unknown = {}, page?: unknown) => ipc.invoke(ipcChannel(name), request, page) as Promise<IpcOutcome>];
    const subscribe = (listener: (event: unknown) => void) => {
      const forward = (_event: unknown, message: unknown) => listener(message);
      ipc.on(ipcChannel(name), forward);
      ipc.invoke(ipcStreamControl(name, 'start')).catch(() => listener({ type: 'lost', retrying: false } satisfies StreamLost));
      return () => {
        ipc.off(ipcChannel(name), forward);
        void ipc.invoke(ipcStreamControl(name, 'stop'));
      };
    };
    return [name, subscribe];
  });
  return Object.fromEntries(entries) as WorkbenchBridge;
}

/** The desktop's one call beside the table: the system's folder picker, answered by the main process. */
export function desktopBridge(ipc: IpcRendererLike): DesktopBridge {
  return { pickFolder: (purpose: FolderPurpose = 'collections') => ipc.invoke(PICK_FOLDER_CHANNEL, purpose) as Promise<string | null> };
}
