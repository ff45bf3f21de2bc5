/**
 * Which destination response headers the client gets: all of them unchanged (duplicates such as Set-Cookie
 * included), minus hop-by-hop ones, plus the service's own `PFX-PROXY-DESTINATION-STATUS` and `PFX-TRACE-ID`.
 */
import { hopByHopFilter } from './hop-by-hop';

export function destinationStatusHeader(prefix: string): string {
  return `${prefix}-PROXY-DESTINATION-STATUS`;
}

/**
 * The client's response headers for the header prefix setting, names worked out once.
 * A destination's own `PFX-PROXY-DESTINATION-STATUS` is dropped, because clients rely on that header's absence to
 * tell a service error from a destination answer; its own `PFX-TRACE-ID` too, so the client reads back the one trace
 * id it sent (or the service made), not two joined.
 * @returns from the destination's response headers as flat raw pairs, what the client gets
 */
export function clientResponseHeaders(prefix: string): (rawHeaders: readonly string[], status: number, traceId: string) => string[] {
  const statusHeader = destinationStatusHeader(prefix);
  const traceHeader = `${prefix}-TRACE-ID`;
  const ownStatus = statusHeader.toLowerCase();
  const ownTrace = traceHeader.toLowerCase();
  return (rawHeaders, status, traceId) => {
    const isHopByHop = hopByHopFilter(rawHeaders);
    const headers: string[] = [];
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const lower = rawHeaders[i].toLowerCase();
      if (!isHopByHop(lower) && lower !== ownStatus && lower !== ownTrace) headers.push(rawHeaders[i], rawHeaders[i + 1]);
    }
    headers.push(statusHeader, String(status), traceHeader, traceId);
    return headers;
  };
}
