import { isCall, METHOD_NAMES, WORKBENCH_METHODS, type WorkbenchApi } from '../../../shared/workbench/methods';
import type { Transport } from './transport';

/** The method table as the page calls it, over either transport: every reply and event validated once, on arrival. */
export function workbenchClient(transport: Transport): WorkbenchApi {
  const methods = METHOD_NAMES.map((name) => {
    if (isCall(name)) {
      const { reply } = WORKBENCH_METHODS[name];
      return [name, async (request: unknown = {}) => reply.parse(await transport.call(name, request))];
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
