/**
 * Why a connection failed, from the code the socket or undici gave, in one word per remedy: the proxy records it for
 * a destination it could not reach, and the workbench reads it for a service it could not reach.
 */
export const NETWORK_REASONS = ['refused', 'dns', 'reset', 'tls', 'connect_timeout', 'network'] as const;
export type NetworkReason = (typeof NETWORK_REASONS)[number];

/** Each known code, with its words. */
const KNOWN = new Map<string, { reason: NetworkReason; words: string }>([
  ['ECONNREFUSED', { reason: 'refused', words: 'connection refused' }],
  ['ENOTFOUND', { reason: 'dns', words: 'host name not found' }],
  ['EAI_AGAIN', { reason: 'dns', words: 'host name lookup failed' }],
  ['ECONNRESET', { reason: 'reset', words: 'connection reset' }],
  ['EPIPE', { reason: 'reset', words: 'connection reset' }],
  ['UND_ERR_SOCKET', { reason: 'reset', words: 'connection closed by the destination' }],
  ['EHOSTUNREACH', { reason: 'network', words: 'host unreachable' }],
  ['ENETUNREACH', { reason: 'network', words: 'network unreachable' }],
  ['UND_ERR_CONNECT_TIMEOUT', { reason: 'connect_timeout', words: 'connect timed out' }],
]);

/** errno-style codes (ECONNREFUSED, …): the network, not a fault of the program. */
const SYSTEM_ERROR = /^E[A-Z0-9]+$/;
const TLS_FAILURE = /^ERR_TLS_|^ERR_SSL_|CERT|SELF_SIGNED|^UNABLE_TO_/;

/** A code's reason and words, or undefined for a code that is no network failure (a program's fault). */
export function networkFailureOf(code: string): { reason: NetworkReason; words: string } | undefined {
  if (TLS_FAILURE.test(code)) return { reason: 'tls', words: `TLS failed (${code})` };
  return KNOWN.get(code) ?? (SYSTEM_ERROR.test(code) ? { reason: 'network', words: code } : undefined);
}
