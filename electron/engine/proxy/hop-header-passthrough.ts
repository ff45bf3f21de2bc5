/**
 * undici refuses a `Keep-Alive` request header and always writes its own `Connection` line, yet the proxy
 * must send the client's `PFX-PROXY-KEEP-ALIVE` / `PFX-PROXY-CONNECTION` values to the destination (docs/api.md,
 * Proxy). So those two
 * travel through undici under a per-process marker name (undici validates their values like any header) and
 * get their real names back in undici's documented `undici:request:create` hook, which runs synchronously
 * while the request is built, before anything is written.
 */
import { randomBytes } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';

/** Random per process, so a client cannot send a header that gets renamed. */
const MARKER = `x-tokenbench-${randomBytes(8).toString('hex')}-`;
const KEEP_ALIVE_MARK = `${MARKER}keep-alive`;
const CONNECTION_MARK = `${MARKER}connection`;
const REAL_NAMES = new Map([
  [KEEP_ALIVE_MARK, 'Keep-Alive'],
  [CONNECTION_MARK, 'Connection'],
]);

subscribe('undici:request:create', (message) => {
  const { headers } = (message as { request: { headers: unknown[] } }).request;
  for (let i = 0; i < headers.length; i += 2) {
    const realName = REAL_NAMES.get(headers[i] as string);
    if (realName !== undefined) headers[i] = realName;
  }
});

export interface UndiciHeaders {
  headers: string[];
  /** undici writes `connection: close` itself (and retires the socket) when asked through `reset`. */
  reset?: true;
}

/**
 * Turns the destination's header list into what undici's `request()` accepts while still delivering
 * `Keep-Alive` and `Connection` as given. undici's own `connection: keep-alive|close` line carries those two
 * tokens; any other `Connection` tokens follow in a second `Connection` line, which HTTP reads as one list.
 */
export function toUndiciHeaders(headers: readonly string[]): UndiciHeaders {
  const out: string[] = [];
  let reset: true | undefined;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    const value = headers[i + 1];
    const lower = name.toLowerCase();
    if (lower === 'keep-alive') {
      out.push(KEEP_ALIVE_MARK, value);
    } else if (lower === 'connection') {
      const others: string[] = [];
      for (const token of value.split(',').map((t) => t.trim())) {
        const option = token.toLowerCase();
        if (option === 'close') reset = true;
        else if (option !== 'keep-alive' && token !== '') others.push(token);
      }
      if (others.length > 0) out.push(CONNECTION_MARK, others.join(', '));
    } else {
      out.push(name, value);
    }
  }
  return reset ? { headers: out, reset } : { headers: out };
}
