import type { ServerResponse } from 'node:http';
import { withoutHeaders } from './raw-headers';

/**
 * Browser pages a developer chose to let call the wire API (`--allow-origin`): a front end that tokenizes with a
 * public key, as the hosted service's browser SDKs do. Off by default; each origin is named, never `*`. The Host
 * check (DNS rebinding) still applies to them, and the workbench's own endpoints stay closed to them.
 */

/** `scheme://host[:port]`, lower-case, as a browser sends it in `Origin`; a message when `value` is not one. */
export function normalizeOrigin(value: string): string | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `"${value}" is not an origin (scheme://host[:port])` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `"${value}" is not an http or https origin` };
  if (url.origin !== value.replace(/\/$/, '').toLowerCase()) {
    return { problem: `"${value}" is not an origin: give only scheme://host[:port], as the browser sends it` };
  }
  return url.origin;
}

const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** A destination's own CORS answer, which the grant replaces in a proxied response (two would void both). */
const GRANT_HEADERS = new Set(['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers']);

/**
 * Makes every head this response writes carry the CORS grant for `origin`. Wrapping writeHead, rather than calling
 * setHeader, keeps the routes' header arrays (the proxy's duplicate Set-Cookie) exactly as they are, but for the
 * grant headers a destination sent itself.
 */
export function grantCrossOrigin(res: ServerResponse, origin: string): void {
  // Credentials are never allowed, so `*` may expose every response header (trace id, destination status, …).
  const grant = { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': '*' };
  const flat = Object.entries(grant).flat();
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    const reason = typeof rest[0] === 'string' ? rest.shift() : undefined;
    const headers = rest[0] as Record<string, string> | string[] | undefined;
    const granted = Array.isArray(headers) ? [...withoutHeaders(headers, GRANT_HEADERS), ...flat] : { ...headers, ...grant };
    const args = reason === undefined ? [status, granted] : [status, reason, granted];
    return writeHead.apply(this, args as Parameters<ServerResponse['writeHead']>);
  };
}

/** The headers that answer a preflight for a path taking `methods`: the methods, and the headers the page asked for. */
export function preflightHeaders(methods: string, requestedHeaders: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    'access-control-allow-methods': methods,
    'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
  };
  if (requestedHeaders) headers['access-control-allow-headers'] = requestedHeaders;
  return headers;
}
