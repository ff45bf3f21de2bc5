import { isCredentialHeader } from '../../../shared/secrets/credential-headers';
import { SESSION_HEADER, SESSION_QUERY, WORKBENCH_PATHS } from '../../../shared/workbench/transport';
import { LruCache } from '../lru-cache';

const SESSION_HEADER_NAME = SESSION_HEADER.toLowerCase();

/** Clients send the same few header names again and again: each is judged once. */
const judged = new LruCache<string, boolean>(1000);

/**
 * Headers whose values are credentials: the history shows only enough of them to tell two apart. The workbench's
 * session is one: a request carrying it that the workbench does not answer (a foreign Origin) is recorded.
 */
function isSecretHeader(name: string): boolean {
  let secret = judged.get(name);
  if (secret === undefined) {
    secret = isCredentialHeader(name) || name.toLowerCase() === SESSION_HEADER_NAME;
    judged.add(name, secret);
  }
  return secret;
}

// ASCII on purpose: one character past Latin-1 (an ellipsis) makes every history entry's JSON a two-byte string,
// twice the bytes to serialize, post to the history worker and convert for SQLite.
const hint = (value: string) => (value.length > 8 ? `...${value.slice(-4)}` : '...');

/**
 * The values of secrets the engine itself put into a request (the workbench's references, resolved as it left), and
 * the reference each stood for. History shows the reference, which holds no secret, wherever a value appears.
 */
export interface ResolvedSecrets {
  /** The text with every value it holds written back as its reference; the same text when it holds none. */
  asReferences(text: string): string;
  /** The same for bytes read as UTF-8 (a kept body). */
  bytesAsReferences(bytes: Uint8Array): Uint8Array;
  /** A header whose references the engine put in, as it was written (`${env:…}` and all); undefined for any other. */
  headerAsWritten(name: string, value: string): string | undefined;
}

/**
 * The request's headers as sent, in order, with credentials cut to a hint, and a header whose references the workbench
 * put in as it was written, resolved secrets elsewhere as their references.
 */
export function headersForLog(rawHeaders: string[], secrets?: ResolvedSecrets): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    const value = rawHeaders[i + 1];
    const referenced = secrets?.headerAsWritten(name, value) ?? secrets?.asReferences(value) ?? value;
    out.push([name, referenced !== value ? referenced : isSecretHeader(name) ? hint(value) : value]);
  }
  return out;
}

/** A parsed body (as a route keeps it for history) with each secret value in its strings written back as its reference. */
export function withReferences(value: unknown, secrets: ResolvedSecrets): unknown {
  if (typeof value === 'string') return secrets.asReferences(value);
  if (Array.isArray(value)) return value.map((item) => withReferences(item, secrets));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withReferences(item, secrets)]));
  return value;
}

/** A query parameter's name as a URLSearchParams reader sees it (`sess%69on` is `session`). */
function decodedName(pair: string): string {
  const name = pair.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

const BIN_LOOKUP = '/enrichments/card-details?';
const binOnly = (value: string) => (value.length > 8 ? `${value.slice(0, 8)}…` : value);

/** The workbench's paths without their last slash, so `/ui?…` (which redirects to the page) is one of them. */
const WORKBENCH_PREFIXES = Object.values(WORKBENCH_PATHS).map((path) => path.slice(0, -1));

/**
 * The request target as sent, with a credential in its query cut to a hint like a credential header: the workbench
 * session of a workbench path (the live stream takes it as a query parameter, since EventSource sends no headers, and
 * the page's address sends it when typed with `?session=`), and a proxy key (`<prefix>-proxy-key`) of a /proxy call.
 * A card-details lookup's `bin` keeps its first 8 characters: a client may send a whole card number there.
 */
export function pathForLog(target: string, proxyKeyParam?: string): string {
  const queryAt = target.indexOf('?');
  if (queryAt === -1) return target;
  const [secret, shorten] = WORKBENCH_PREFIXES.some((prefix) => target.startsWith(prefix))
    ? [SESSION_QUERY, hint]
    : proxyKeyParam !== undefined && (target.startsWith('/proxy/') || target.startsWith('/proxy?'))
      ? [proxyKeyParam, hint]
      : target.startsWith(BIN_LOOKUP)
        ? ['bin', binOnly]
        : [undefined, hint];
  if (secret === undefined) return target;
  const pairs = target.slice(queryAt + 1).split('&');
  const cut = pairs.map((pair) => {
    if (decodedName(pair).toLowerCase() !== secret) return pair;
    const equals = pair.indexOf('=');
    return equals === -1 ? pair : pair.slice(0, equals + 1) + shorten(pair.slice(equals + 1));
  });
  return `${target.slice(0, queryAt)}?${cut.join('&')}`;
}
