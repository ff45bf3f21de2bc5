import { WorkbenchError, type WorkbenchBridge } from '../../../shared/workbench/transport';
import type { Transport } from './transport';

const isLost = (event: unknown): event is { type: 'lost'; retrying: boolean } => (event as { type?: unknown } | null)?.type === 'lost';

/** The method table over the preload bridge (Electron); a failed call arrives as a problem, as over HTTP. */
export function ipcTransport(bridge: WorkbenchBridge): Transport {
  return {
    async call(name, request, page) {
      const outcome = await bridge[name](request, page);
      if (!outcome.ok) throw new WorkbenchError(outcome.problem);
      return outcome.value;
    },
    subscribe: (name, onEvent, onLost) => bridge[name]((event) => (isLost(event) ? onLost(event.retrying) : onEvent(event))),
  };
}
