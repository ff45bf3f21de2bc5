import type { IncomingMessage } from 'node:http';
import { ApiProblem } from './problem';

/**
 * DNS-rebinding and cross-site defences, checked before any body byte is read and for every method: a rebound
 * page reaches us with a foreign Host; a cross-site page carries a foreign Origin.
 */
const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Every Host value this service answers to: its loopback names, bare or with its port, and each public URL's host
 * (`--public-url`), with or without its scheme's default port, as a client may send either.
 */
export function allowedHosts(port: number, publicUrls: readonly string[] = []): Set<string> {
  const hosts = new Set(LOCAL_NAMES.flatMap((name) => [name, `${name}:${port}`]));
  for (const origin of publicUrls) {
    const url = new URL(origin);
    hosts.add(url.host);
    hosts.add(`${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`);
  }
  return hosts;
}

export function isAllowedHost(host: string | undefined, hosts: ReadonlySet<string>): boolean {
  return host !== undefined && hosts.has(host.toLowerCase());
}

/** Our own origins: the workbench UI served by the engine, at its loopback names and its public URLs. */
export function ownOrigins(port: number, publicUrls: readonly string[] = []): Set<string> {
  return new Set([...LOCAL_NAMES.map((h) => `http://${h}:${port}`), ...publicUrls]);
}

const ABSOLUTE_FORM = /^https?:\/\/([^/?#]*)(.*)$/i;

/**
 * An absolute-form request target (`GET http://localhost:4780/tokens`, as sent to a proxy) as the origin-form path
 * and query the routes read, and the host it names, which a server takes instead of Host (RFC 9112 §3.2.2).
 */
export function absoluteTarget(target: string): { path: string; host: string } | null {
  const match = ABSOLUTE_FORM.exec(target);
  if (!match) return null;
  const rest = match[2];
  return { host: match[1], path: rest.startsWith('/') ? rest : `/${rest}` };
}

/** How many Host headers came: Node keeps the first of several, which would let a second one pass unseen. */
function hostHeaderCount(req: IncomingMessage): number {
  let count = 0;
  // Names of four characters only are lower-cased: this runs on every request.
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === 'host') count++;
  return count;
}

/**
 * Why a request is refused before anything else is done with it, or null.
 * @param hosts every Host value this service answers to (allowedHosts)
 * @param origins every origin a browser may call us from: our own and those allowed by setting
 * @param targetHost the host an absolute-form target names, which stands in for Host
 */
export function guardFailure(req: IncomingMessage, hosts: ReadonlySet<string>, origins: Set<string>, targetHost?: string): ApiProblem | null {
  if (targetHost === undefined) {
    const hosts = hostHeaderCount(req);
    if (hosts === 0) return new ApiProblem(400, 'The Host header is required');
    if (hosts > 1) return new ApiProblem(400, `The Host header is given ${hosts} times; send it once`);
  }
  if (!isAllowedHost(targetHost ?? req.headers.host, hosts)) return new ApiProblem(403, 'Host header is not a local address or public URL of this service');
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.has(origin.toLowerCase())) {
    return new ApiProblem(403, 'Cross-origin requests are not accepted (serve --allow-origin lets a named origin call the API)');
  }
  return null;
}
