import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { FeedEvent, WorkbenchApi } from '../../shared/workbench/contract';
import { BRIDGE_NAME, IPC_CHANNELS } from '../../shared/workbench/transport';

/*
 * The one object the renderer sees: the workbench contract over IPC, nothing else of Electron. It passes messages
 * through unchanged; the main process validates requests and the renderer validates replies.
 */
const bridge: WorkbenchApi = {
  getStatus: () => ipcRenderer.invoke(IPC_CHANNELS.getStatus),
  listHistory: (query = {}) => ipcRenderer.invoke(IPC_CHANNELS.listHistory, query),
  revealOutbound: (id) => ipcRenderer.invoke(IPC_CHANNELS.revealOutbound, { id }),
  onHistory(listener) {
    const forward = (_event: IpcRendererEvent, message: FeedEvent) => listener(message);
    ipcRenderer.on(IPC_CHANNELS.live, forward);
    ipcRenderer.invoke(IPC_CHANNELS.liveStart).then(listener, () => listener({ type: 'lost', retrying: false }));
    return () => {
      ipcRenderer.off(IPC_CHANNELS.live, forward);
      void ipcRenderer.invoke(IPC_CHANNELS.liveStop);
    };
  },
};

contextBridge.exposeInMainWorld(BRIDGE_NAME, bridge);
