/**
 * Which of the client's request headers reach the destination (docs/api.md, Proxy): everything as given, in
 * order and with duplicates, except hop-by-hop headers, `Host`, `Content-Length` (recomputed after
 * detokenization) and the service's own `PFX-*` headers; `PFX-PROXY-KEEP-ALIVE` and `PFX-PROXY-CONNECTION`
 * become the destination's `Keep-Alive` and `Connection`. Values with proxy expressions are noted, to be evaluated
 * once the body is known.
 */
import { holdsLiteralExpression, holdsProxyExpression } from '../expressions';
import { ApiProblem } from '../server/problem';
import type { CompatibilityWarning } from './compatibility';
import { hopByHopFilter } from './hop-by-hop';

export interface OutboundHeaders {
  /** Flat raw pairs: name, value, name, value… */
  headers: string[];
  warnings: CompatibilityWarning[];
  /** Where in `headers` a value holds a proxy expression (the index of its name): evaluated before it leaves. */
  templated: number[];
}

/** `Expect: 100-continue` was already answered by Node's server, and undici cannot send it. */
const NEVER_FORWARDED = new Set(['host', 'content-length', 'expect']);
/** RFC 9110 token. */
const VALID_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Tab, visible ASCII and obs-text: no CR, LF, NUL or other control character (what undici also accepts). */
const VALID_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * @param rawHeaders the incoming `req.rawHeaders` (flat pairs)
 * @param prefix the header prefix setting, e.g. `BT`
 * @param keptNames the names a pre-configured proxy lets through (vendor: letters, digits, `-` and `_`), each a
 * valid name; without it every name goes on
 * @throws ApiProblem 400 when a header to forward has a name or value that cannot go on the wire
 */
export function outboundHeaders(rawHeaders: readonly string[], prefix: string, keptNames?: RegExp): OutboundHeaders {
  const own = `${prefix.toLowerCase()}-`;
  const renamed = new Map([
    [`${own}proxy-keep-alive`, 'Keep-Alive'],
    [`${own}proxy-connection`, 'Connection'],
  ]);
  const isHopByHop = hopByHopFilter(rawHeaders);
  const headers: string[] = [];
  const warnings: CompatibilityWarning[] = [];
  const templated: number[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    const value = rawHeaders[i + 1];
    const lower = name.toLowerCase();
    const outName = renamed.get(lower) ?? (lower.startsWith(own) || NEVER_FORWARDED.has(lower) || isHopByHop(lower) ? undefined : name);
    if (outName === undefined || (keptNames !== undefined && !keptNames.test(name))) continue;
    // A name a pre-configured proxy keeps needs no second test: each is a valid one.
    if ((keptNames === undefined && !VALID_NAME.test(name)) || !VALID_VALUE.test(value)) {
      // JSON.stringify so a CR/LF in the name shows escaped; the value itself is never echoed.
      throw new ApiProblem(400, `header ${JSON.stringify(name)} contains a character that cannot be forwarded (CR, LF, NUL or another control character)`);
    }
    if (value.includes('{{')) {
      if (holdsProxyExpression(value)) templated.push(headers.length);
      if (holdsLiteralExpression(value)) {
        warnings.push({ message: `header ${name} contains a {{ token expression; token expressions are detokenized only in the body`, outside: [{ part: 'header', name }] });
      }
    }
    headers.push(outName, value);
  }
  return { headers, warnings, templated };
}
