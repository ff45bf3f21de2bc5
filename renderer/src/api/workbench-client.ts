import { isCall, METHOD_NAMES, WORKBENCH_METHODS, type WorkbenchApi } from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';
import type { Transport } from './transport';

/**
 * The method table as the page calls it, over either transport: every reply and event validated once, on arrival.
 * Every call names the page on show as it is made, so the engine's history can say which page acted.
 */
export function workbenchClient(transport: Transport, pageOnShow: () => PageId | undefined): WorkbenchApi {
  const methods = METHOD_NAMES.map((name) => {
    if (isCall(name)) {
      const { reply } = WORKBENCH_METHODS[name];
      return [name, async (request: unknown = {}) => reply.parse(await transport.call(name, request, pageOnShow()))];
    }
    const { event } = WORKBENCH_METHODS[name];
    const subscribe = (listener: (event: unknown) => void) =>
      transport.subscribe(
        name,
        (received) => listener(event.parse(received)),
        (retrying) => listener({ type: 'lost', retrying }),
      );
    return [name, subscribe];
  });
  return Object.fromEntries(methods) as WorkbenchApi;
}
