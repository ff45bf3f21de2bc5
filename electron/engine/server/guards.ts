import type { IncomingMessage } from 'node:http';

/**
 * DNS-rebinding and cross-site defences, checked before any body byte is read and for every method: a rebound
 * page reaches us with a foreign Host; a cross-site page carries a foreign Origin.
 */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const lower = host.toLowerCase();
  if (LOCAL_HOSTS.has(lower)) return true;
  const colon = lower.lastIndexOf(':');
  if (colon <= 0) return false;
  return LOCAL_HOSTS.has(lower.slice(0, colon)) && lower.slice(colon + 1) === String(port);
}

/** Our own origins: the workbench UI served by the engine. */
export function ownOrigins(port: number): Set<string> {
  return new Set(['localhost', '127.0.0.1', '[::1]'].map((h) => `http://${h}:${port}`));
}

/** @param origins every origin a browser may call us from: our own and those allowed by setting */
export function guardFailure(req: IncomingMessage, port: number, origins: Set<string>): string | null {
  if (!isAllowedHost(req.headers.host, port)) return 'Host header is not a local address of this service';
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.has(origin.toLowerCase())) {
    return 'Cross-origin requests are not accepted (serve --allow-origin lets a named origin call the API)';
  }
  return null;
}
