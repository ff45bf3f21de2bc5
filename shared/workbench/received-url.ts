/**
 * A request target as the engine received it (and History keeps it), made into a path and query of the engine's own
 * origin: what the HAR export, Copy as cURL and replay send or write. A target is client input, and not always a
 * path (`//evil.example/x`, `ftp://x/y`, `*`, `/%zz`): resolving it as a relative URL can throw or name another host.
 */

/** RFC 3986's characters of a path (pchar and `/`); a query also holds `?`. A `%` only where it starts an escape. */
const PATH_OTHER = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]+/g;
const QUERY_OTHER = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+/g;

const encoder = new TextEncoder();
/** Each byte of the run's UTF-8 as an escape (a lone surrogate as U+FFFD's, as TextEncoder writes it). */
const escaped = (run: string) => Array.from(encoder.encode(run), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/**
 * The target as an origin-form path and query, byte for byte: what a URL cannot hold as it is (a `\`, a `#`, a stray
 * `%`, whitespace a URL parser drops) escaped, and a target that does not start with `/` given one. Node's parser
 * takes only visible ASCII in a target; other characters come from the workbench's own entries, and are written as
 * UTF-8, as a URL writes them.
 */
export function receivedTarget(target: string): string {
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const originForm = (path.startsWith('/') ? path : `/${path}`).replace(PATH_OTHER, escaped);
  return queryAt === -1 ? originForm : `${originForm}?${target.slice(queryAt + 1).replace(QUERY_OTHER, escaped)}`;
}

/** The target as a URL of `origin` (`http://127.0.0.1:4780`, no path): it never throws and never names another host. */
export const receivedUrl = (origin: string, target: string): string => `${origin}${receivedTarget(target)}`;
