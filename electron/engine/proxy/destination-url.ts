/**
 * Where a `/proxy` request goes (docs/api.md, Proxy): `PFX-PROXY-URL` with its trailing `/` removed, plus the
 * path after `/proxy`, plus the query string (merged after any query the proxy URL already carries).
 */
import { isIP } from 'node:net';
import { ApiProblem } from '../server/problem';
import type { CompatibilityWarning, OutsideBody } from './compatibility';

export const PROXY_MOUNT = '/proxy';

/** Plain strings, so one resolution can be cached and shared by every request that names the same target. */
export interface ProxyDestination {
  /** `scheme://host[:port]`: what the connection pool is keyed by. */
  readonly origin: string;
  /** Path and query, as they go on the request line. */
  readonly path: string;
  readonly href: string;
  /** Things the hosted service would refuse although Tokenbench accepts them (shown in the GUI and history). */
  readonly warnings: readonly CompatibilityWarning[];
}

/** The URL a proxy may send to, or why `value` cannot be one (a sentence that follows the field's name). */
export function parseDestinationUrl(value: string): URL | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must use http or https, not ${url.protocol.slice(0, -1)}`;
  if (url.username !== '' || url.password !== '') return 'must not contain user info (user:password@)';
  return url;
}

function parseProxyUrl(value: string | undefined, header: string): URL {
  if (value === undefined || value.trim() === '') throw new ApiProblem(400, `${header} header is required`);
  const url = parseDestinationUrl(value);
  if (typeof url === 'string') throw new ApiProblem(400, `${header} ${url}`);
  return url;
}

/** `{{` as typed, or percent-encoded (by the client's HTTP library or by URL parsing). */
const EXPRESSION_START = /\{\{|%7B%7B/i;

/** The parts of the URL that hold an expression: its path, and each query parameter by name. */
function expressionsIn(url: URL): OutsideBody[] {
  const outside: OutsideBody[] = EXPRESSION_START.test(url.pathname) ? [{ part: 'path' }] : [];
  for (const [name, value] of url.searchParams) {
    if (EXPRESSION_START.test(name) || EXPRESSION_START.test(value)) outside.push({ part: 'query', name });
  }
  return outside;
}

function compatibilityWarnings(url: URL): CompatibilityWarning[] {
  const warnings: CompatibilityWarning[] = [];
  if (EXPRESSION_START.test(url.href)) {
    warnings.push({ message: 'the destination URL contains a {{ expression; expressions are detokenized only in the body', outside: expressionsIn(url) });
  }
  if (url.protocol === 'http:') warnings.push({ message: 'destination uses http; the hosted service only proxies to https' });
  if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
    warnings.push({ message: `destination host ${url.hostname} is an IP address; the hosted service requires a DNS name` });
  }
  if (url.hostname === 'localhost') warnings.push({ message: 'destination is localhost; the hosted service cannot reach your machine' });
  return warnings;
}

/**
 * @param proxyUrl the `PFX-PROXY-URL` header value
 * @param requestTarget the raw request target as received (`req.url`), e.g. `/proxy/v1/charges?expand=x`;
 *   kept raw so percent-encoded characters reach the destination as the client wrote them
 * @param prefix the header prefix setting (e.g. `BT`), used to name the header in errors
 * @param header what errors call the proxy URL: the header by default, a pre-configured proxy's field for one
 */
export function resolveDestination(proxyUrl: string | undefined, requestTarget: string, prefix: string, header = `${prefix}-PROXY-URL`): ProxyDestination {
  const queryAt = requestTarget.indexOf('?');
  const path = queryAt === -1 ? requestTarget : requestTarget.slice(0, queryAt);
  const query = queryAt === -1 ? '' : requestTarget.slice(queryAt + 1);
  if (path !== PROXY_MOUNT && !path.startsWith(`${PROXY_MOUNT}/`)) {
    throw new Error(`resolveDestination called for a non-proxy target ${JSON.stringify(path)}`);
  }

  const url = parseProxyUrl(proxyUrl, header);
  url.hash = '';
  const base = url.pathname.replace(/\/$/, '');
  // The URL parser resolves `..` (and its encoded and backslash spellings) here, as every client library would.
  url.pathname = base + path.slice(PROXY_MOUNT.length);
  if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
    // Resolved and refused, rather than kept inside: a client that writes such a path has a bug worth hearing about.
    throw new ApiProblem(400, `The path after /proxy climbs out of the path of ${header} with ".." segments`);
  }
  url.search = [url.search.slice(1), query].filter((part) => part !== '').join('&');
  return { origin: url.origin, path: url.pathname + url.search, href: url.href, warnings: compatibilityWarnings(url) };
}
