import { isIPv4 } from 'node:net';

/** The Host guard admits loopback names only, so a wildcard bind is reached, and announced, at the loopback name. */
const LOOPBACK_FOR_WILDCARD: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '::1' };

/** The address a client on this machine uses for a server bound to `host` and `port`. */
export function localUrl(host: string, port: number): string {
  const name = LOOPBACK_FOR_WILDCARD[host] ?? host;
  return `http://${name.includes(':') ? `[${name}]` : name}:${port}`;
}

/** Whether `host` binds every interface (then the server is reached here at loopback). */
export const isWildcardHost = (host: string) => host in LOOPBACK_FOR_WILDCARD;

/** Whether `host` is a loopback address or name: anything else lets other machines in ("beyond loopback"). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIPv4(host) && host.startsWith('127.'));
}
