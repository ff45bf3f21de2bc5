import { COMPOSER_METHODS, type SavedRequest } from './collection-contract';

/** A request as a client sent it to the service: path with its query, headers in order, body as text. */
export interface SentRequest {
  method: string;
  path: string;
  headers: readonly (readonly [string, string])[];
  body: string;
}

/** The Composer's request for one that was sent, and what the user must know before sending it again. */
export interface DraftOf {
  draft: SavedRequest;
  notes: string[];
}

/** The hosted service's header prefix: a request copied from its docs or a back end's logs uses it. */
export const HOSTED_PREFIX = 'BT';

/** Headers a client's HTTP library writes by itself. */
export const CLIENT_WRITTEN_HEADERS: ReadonlySet<string> = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'expect']);

/** The body modes by the media type a request named. */
const MODES: [RegExp, SavedRequest['bodyMode']][] = [
  [/json/i, 'json'],
  [/x-www-form-urlencoded/i, 'form'],
  [/xml/i, 'xml'],
  [/^text\//i, 'text'],
];

type ServiceField = keyof SavedRequest['service'];
const SERVICE_SUFFIXES: Record<string, ServiceField> = {
  'transaction-id': 'transaction',
  'proxy-keep-alive': 'keepAlive',
  'proxy-connection': 'connection',
};

/** `BT-PROXY-URL` as `proxy-url` under either prefix; null for any other header. */
function serviceSuffix(name: string, prefixes: readonly string[]): string | null {
  const lower = name.toLowerCase();
  const prefix = prefixes.find((candidate) => lower.startsWith(`${candidate.toLowerCase()}-`));
  return prefix === undefined ? null : lower.slice(prefix.length + 1);
}

/**
 * Turns a request as it was sent into the Composer's request: the service's headers into their named fields (under
 * the engine's prefix or the hosted service's), through the proxy the destination back into one URL, the key and the
 * trace id left out (the Composer sends as an application, and each request gets its own trace), the body's mode from
 * its Content-Type. History's replay and the cURL and HAR import both use it, so the two never disagree.
 */
export function draftOf(sent: SentRequest, kind: SavedRequest['kind'], prefix: string): DraftOf {
  const notes: string[] = [];
  const prefixes = prefix.toLowerCase() === HOSTED_PREFIX.toLowerCase() ? [prefix] : [prefix, HOSTED_PREFIX];
  const service: SavedRequest['service'] = { transaction: '', trace: '', keepAlive: '', connection: '' };
  const headers: SavedRequest['headers'] = [];
  let proxyUrl: string | null = null;
  let contentType: string | null = null;
  let keyLeftOut = false;
  for (const [name, value] of sent.headers) {
    const lower = name.toLowerCase();
    const suffix = serviceSuffix(name, prefixes);
    if (CLIENT_WRITTEN_HEADERS.has(lower) || suffix === 'trace-id') continue;
    if (suffix === 'api-key') keyLeftOut = true;
    else if (suffix === 'proxy-url') proxyUrl = value;
    else if (suffix !== null && suffix in SERVICE_SUFFIXES) service[SERVICE_SUFFIXES[suffix]] = value;
    else if (lower === 'content-type' && contentType === null) contentType = value;
    else headers.push({ name, value, enabled: true });
  }
  if (keyLeftOut) notes.push('The API key was left out: the Composer sends as the application picked under Send as.');
  const mode = contentType === null ? 'json' : (MODES.find(([pattern]) => pattern.test(contentType))?.[1] ?? 'text');
  if (contentType !== null && mode === 'text' && !/^text\/plain/i.test(contentType)) headers.push({ name: 'Content-Type', value: contentType, enabled: true });

  const target = kind === 'proxy' ? `${(proxyUrl ?? '').replace(/\/$/, '')}${sent.path.replace(/^\/proxy/, '')}` : sent.path;
  if (kind === 'proxy' && proxyUrl === null) notes.push(`The request named no ${prefix}-PROXY-URL: write the destination URL.`);
  const method = (COMPOSER_METHODS as readonly string[]).includes(sent.method.toUpperCase()) ? (sent.method.toUpperCase() as SavedRequest['method']) : 'GET';
  if (method !== sent.method.toUpperCase()) notes.push(`${sent.method} is not a method the Composer sends: it is GET now.`);
  return {
    draft: { kind, method, target, headers, service, bodyMode: sent.body === '' && method === 'GET' ? 'none' : mode, body: sent.body },
    notes,
  };
}
