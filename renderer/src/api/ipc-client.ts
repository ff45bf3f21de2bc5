import {
  engineStatusSchema,
  historyListSchema,
  liveEventSchema,
  type WorkbenchApi,
} from '../../../shared/workbench/contract';

/** The workbench contract over the preload bridge (Electron), with every reply validated on arrival. */
export function ipcClient(bridge: WorkbenchApi): WorkbenchApi {
  return {
    getStatus: async () => engineStatusSchema.parse(await bridge.getStatus()),
    listHistory: async (query) => historyListSchema.parse(await bridge.listHistory(query)),
    onHistory: (listener) => bridge.onHistory((event) => listener(event.type === 'lost' ? event : liveEventSchema.parse(event))),
  };
}
