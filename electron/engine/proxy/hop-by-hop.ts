/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, so a proxy never passes them on,
 * in either direction. Shared by the request and response header rules.
 */
const CONNECTION = 'connection';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/**
 * A predicate for one message's headers: true for a hop-by-hop name (given lower-cased), which includes
 * every `Proxy-*` header and every name the message's own `Connection` header(s) list.
 */
export function hopByHopFilter(rawHeaders: readonly string[]): (lowerName: string) => boolean {
  let listed: Set<string> | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length !== CONNECTION.length || rawHeaders[i].toLowerCase() !== CONNECTION) continue;
    listed ??= new Set();
    for (const token of rawHeaders[i + 1].split(',')) listed.add(token.trim().toLowerCase());
  }
  // Most messages name nothing in Connection: they share one predicate instead of a fresh set and closure each.
  if (!listed) return isFixedHopByHop;
  const named = listed;
  return (lowerName) => isFixedHopByHop(lowerName) || named.has(lowerName);
}

const isFixedHopByHop = (lowerName: string) => HOP_BY_HOP.has(lowerName) || lowerName.startsWith('proxy-');
