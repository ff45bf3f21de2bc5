import type { WorkbenchApi } from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';
import { BRIDGE_NAME, type WorkbenchBridge } from '../../../shared/workbench/transport';
import { httpTransport } from './http-transport';
import { ipcTransport } from './ipc-transport';
import { takeSession } from './session';
import { workbenchClient } from './workbench-client';

/**
 * IPC inside the Electron window (the preload put the bridge there); HTTP when the engine serves the page to a browser.
 * `pageOnShow` names the page each call is made on.
 */
export function connectWorkbench(pageOnShow: () => PageId | undefined): WorkbenchApi {
  const bridge = (window as unknown as Partial<Record<typeof BRIDGE_NAME, WorkbenchBridge>>)[BRIDGE_NAME];
  return workbenchClient(bridge ? ipcTransport(bridge) : httpTransport(takeSession()), pageOnShow);
}
