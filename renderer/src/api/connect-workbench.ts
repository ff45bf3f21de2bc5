import type { WorkbenchApi } from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';
import { BRIDGE_NAME, type WorkbenchBridge } from '../../../shared/workbench/transport';
import { httpTransport } from './http-transport';
import { ipcTransport } from './ipc-transport';
import { takeSession } from './session';
import { workbenchClient } from './workbench-client';

/** The bridge the desktop app's preload put on the page before it loaded; none in a browser. */
const desktopBridge = () => (window as unknown as Partial<Record<typeof BRIDGE_NAME, WorkbenchBridge>>)[BRIDGE_NAME];

/** Whether the page is the desktop app's window: its keys are then the app's, not those a browser leaves to a page. */
export const IN_DESKTOP_APP = desktopBridge() !== undefined;

/**
 * IPC inside the Electron window (the preload put the bridge there); HTTP when the engine serves the page to a browser.
 * `pageOnShow` names the page each call is made on.
 */
export function connectWorkbench(pageOnShow: () => PageId | undefined): WorkbenchApi {
  const bridge = desktopBridge();
  return workbenchClient(bridge ? ipcTransport(bridge) : httpTransport(takeSession()), pageOnShow);
}
