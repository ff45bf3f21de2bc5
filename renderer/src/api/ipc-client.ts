import {
  engineStatusSchema,
  historyListSchema,
  liveEventSchema,
  revealedOutboundSchema,
  type WorkbenchApi,
} from '../../../shared/workbench/contract';

/** The workbench contract over the preload bridge (Electron), with every reply validated on arrival. */
export function ipcClient(bridge: WorkbenchApi): WorkbenchApi {
  return {
    getStatus: async () => engineStatusSchema.parse(await bridge.getStatus()),
    listHistory: async (query) => historyListSchema.parse(await bridge.listHistory(query)),
    revealOutbound: async (id) => revealedOutboundSchema.parse(await bridge.revealOutbound(id)),
    onHistory: (listener) => bridge.onHistory((event) => listener(event.type === 'lost' ? event : liveEventSchema.parse(event))),
  };
}
