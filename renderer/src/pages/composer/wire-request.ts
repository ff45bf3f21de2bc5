import type { BodyMode, ComposerDraft, ComposerMethod, ServiceHeader } from '../../state/composer-store';

/** The service's own headers, offered as named fields; each is sent under the configured prefix when filled. */
export const SERVICE_HEADERS: Record<ServiceHeader, { suffix: string; label: string; meaning: string }> = {
  transaction: { suffix: 'TRANSACTION-ID', label: 'Transaction', meaning: 'Enlists the token writes of this request in an open transaction.' },
  trace: { suffix: 'TRACE-ID', label: 'Trace id', meaning: 'Your id for this request: History shows it and the answer carries it back.' },
  keepAlive: {
    suffix: 'PROXY-KEEP-ALIVE',
    label: 'Proxy Keep-Alive',
    meaning: 'Sent to the destination as Keep-Alive, which a proxy cannot pass on by itself.',
  },
  connection: { suffix: 'PROXY-CONNECTION', label: 'Proxy Connection', meaning: 'Sent to the destination as Connection.' },
};

/** The Content-Type each body mode sends, unless a header row says otherwise. */
export const BODY_TYPES: Record<BodyMode, string | null> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain',
  xml: 'application/xml',
  none: null,
};

/** The request exactly as a client sends it to the service. */
export interface WireRequest {
  method: ComposerMethod;
  path: string;
  headers: [string, string][];
  body: string | null;
}

const isAbsolute = (target: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(target.trim());

/** Where a destination written with references splits: its origin (`${env:base_url}`, `https://${env:host}`) and the rest. */
const REFERENCED_ORIGIN = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*|\$\{[^}]*\})(.*)$/i;

/**
 * The destination of a proxied request: its origin and its path with the query. A target holding references (`${env:…}`)
 * is split as written, since the engine puts their values in only as the request leaves; any other is read as a URL.
 */
function destinationOf(target: string): { origin: string; path: string } | string {
  const trimmed = target.trim();
  if (trimmed === '') return 'Enter the destination URL: where the proxy sends the request (https://api.example.com/v1/charges).';
  if (trimmed.includes('${')) {
    const split = REFERENCED_ORIGIN.exec(trimmed);
    if (!split) return `"${trimmed}" is not a URL: write it whole, with https:// in front, or start it with a variable (\${env:base_url}/v1/charges).`;
    if (!/^(https?:\/\/|\$\{)/i.test(split[1])) return `The destination must be http or https, not ${split[1].split(':')[0]}.`;
    const path = split[2].replace(/#.*$/, '');
    return { origin: split[1], path: path === '/' ? '' : path };
  }
  const url = urlOf(trimmed);
  if (typeof url === 'string') return url;
  return { origin: url.origin, path: `${url.pathname === '/' ? '' : url.pathname}${url.search}` };
}

/** A destination URL read as one, or why it is not one. */
function urlOf(trimmed: string): URL | string {
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return `"${trimmed}" is not a URL: write it whole, with https:// in front.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `The destination must be http or https, not ${url.protocol.slice(0, -1)}.`;
  return url;
}

/** A vault API path, or why the target is not one; a full URL of the service is taken as its path. */
function apiPathOf(target: string): string {
  const trimmed = target.trim();
  if (isAbsolute(trimmed)) {
    const url = new URL(trimmed);
    return url.pathname + url.search;
  }
  return trimmed;
}

/**
 * Turns the draft into the request a client sends: through the proxy, the destination's origin becomes
 * PFX-PROXY-URL and its path and query follow /proxy; the service headers get the prefix; the body's type is
 * sent unless a header row gives one. A string says what to fix instead.
 */
export function wireRequest(draft: ComposerDraft, prefix: string): WireRequest | string {
  const headers: [string, string][] = [];
  let path: string;
  if (draft.kind === 'proxy' && draft.proxy !== undefined) {
    // The pre-configured proxy holds the destination; the engine adds its key as the request leaves.
    const suffix = draft.target.trim();
    if (suffix !== '' && !suffix.startsWith('/') && !suffix.startsWith('?')) return `Enter the path after /proxy, starting with / (for example /v1/charges), or nothing to send to the proxy's destination as it is.`;
    path = `/proxy${suffix}`;
  } else if (draft.kind === 'proxy') {
    const destination = destinationOf(draft.target);
    if (typeof destination === 'string') return destination;
    headers.push([`${prefix}-PROXY-URL`, destination.origin]);
    path = `/proxy${destination.path}`;
  } else {
    path = apiPathOf(draft.target);
    if (!path.startsWith('/')) return 'Enter the path of a vault API call, starting with / (for example /tokens).';
  }
  for (const [field, value] of Object.entries(draft.service) as [ServiceHeader, string][]) {
    if (value.trim() !== '') headers.push([`${prefix}-${SERVICE_HEADERS[field].suffix}`, value.trim()]);
  }
  const rows = draft.headers.filter((row) => row.enabled && row.name.trim() !== '');
  const body = draft.bodyMode === 'none' ? null : draft.body;
  const type = BODY_TYPES[draft.bodyMode];
  if (type && body !== null && !rows.some((row) => row.name.trim().toLowerCase() === 'content-type')) headers.push(['Content-Type', type]);
  headers.push(...rows.map((row): [string, string] => [row.name.trim(), row.value]));
  return { method: draft.method, path, headers, body };
}

/** The query parameters of a target, in order. */
export function queryOf(target: string): [string, string][] {
  const at = target.indexOf('?');
  if (at === -1) return [];
  const hash = target.indexOf('#', at);
  return [...new URLSearchParams(target.slice(at + 1, hash === -1 ? undefined : hash))];
}

/** The target with its query replaced by these parameters (none: no `?`). */
export function withQuery(target: string, parameters: readonly [string, string][]): string {
  const at = target.indexOf('?');
  const base = at === -1 ? target : target.slice(0, at);
  const kept = parameters.filter(([name]) => name !== '');
  return kept.length === 0 ? base : `${base}?${new URLSearchParams(kept)}`;
}
