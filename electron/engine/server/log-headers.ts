import { SESSION_HEADER, SESSION_QUERY, WORKBENCH_PATHS } from '../../../shared/workbench/transport';

const SESSION_HEADER_NAME = SESSION_HEADER.toLowerCase();

/**
 * Headers whose values are credentials: the history shows only enough of them to tell two apart. The workbench's
 * session is one: a request carrying it that the workbench does not answer (a foreign Origin) is recorded.
 */
function isSecretHeader(name: string, prefix: string): boolean {
  const lower = name.toLowerCase();
  return (
    lower === `${prefix}-api-key` ||
    lower === 'authorization' ||
    lower === 'proxy-authorization' ||
    lower === 'cookie' ||
    lower === SESSION_HEADER_NAME
  );
}

// ASCII on purpose: one character past Latin-1 (an ellipsis) makes every history entry's JSON a two-byte string,
// twice the bytes to serialize, post to the history worker and convert for SQLite.
const hint = (value: string) => (value.length > 8 ? `...${value.slice(-4)}` : '...');

/** The request's headers as sent, in order, with credentials cut to a hint. */
export function headersForLog(rawHeaders: string[], headerPrefix: string): [string, string][] {
  const prefix = headerPrefix.toLowerCase();
  const out: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    out.push([name, isSecretHeader(name, prefix) ? hint(rawHeaders[i + 1]) : rawHeaders[i + 1]]);
  }
  return out;
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

/** The workbench's paths without their last slash, so `/ui?…` (which redirects to the page) is one of them. */
const WORKBENCH_PREFIXES = Object.values(WORKBENCH_PATHS).map((path) => path.slice(0, -1));

/**
 * The request target as sent, with the workbench session of a workbench path cut to a hint like a credential header:
 * the live stream takes the session as a query parameter (EventSource sends no headers), and the page's address,
 * which carries it in the fragment, sends it in the query when typed with `?session=`.
 */
export function pathForLog(target: string): string {
  const queryAt = target.indexOf('?');
  if (queryAt === -1 || !WORKBENCH_PREFIXES.some((prefix) => target.startsWith(prefix))) return target;
  const pairs = target.slice(queryAt + 1).split('&');
  const cut = pairs.map((pair) => {
    if (decodedName(pair) !== SESSION_QUERY) return pair;
    const equals = pair.indexOf('=');
    return equals === -1 ? pair : pair.slice(0, equals + 1) + hint(pair.slice(equals + 1));
  });
  return `${target.slice(0, queryAt)}?${cut.join('&')}`;
}
