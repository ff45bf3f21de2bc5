import type { WorkbenchApi } from '../../../shared/workbench/contract';
import { BRIDGE_NAME } from '../../../shared/workbench/transport';
import { httpClient } from './http-client';
import { ipcClient } from './ipc-client';
import { takeSession } from './session';

/** IPC inside the Electron window (the preload put the bridge there); HTTP when the engine serves the page to a browser. */
export function connectWorkbench(): WorkbenchApi {
  const bridge = (window as unknown as Partial<Record<typeof BRIDGE_NAME, WorkbenchApi>>)[BRIDGE_NAME];
  return bridge ? ipcClient(bridge) : httpClient(takeSession());
}
