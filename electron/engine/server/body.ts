import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { type BodyChunks, joinChunks } from './body-chunks';
import { ApiProblem } from './problem';

/** How much of an oversized body we read and discard so the client can still receive its 413. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

const tooLarge = (limit: number) => new ApiProblem(413, `Request body is larger than the limit of ${limit} bytes`);

/**
 * Reads the whole body, never more than `limit` bytes into memory. Beyond it the rest is read and dropped (up to a
 * bound), so the client finishes sending and can read its 413 instead of a reset connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyChunks> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = Number(req.headers['content-length']) > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (over) {
        chunks.length = 0;
        if (size > DRAIN_LIMIT) req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => (over ? reject(tooLarge(limit)) : resolve({ chunks, size })));
    // A client that goes away mid-body ('aborted', or the drain above giving up) is the client's doing, not a fault
    // of the service: the history shows why the request stopped, and the log gets no stack.
    const endedEarly = () => reject(over ? tooLarge(limit) : new ApiProblem(400, 'The request body ended early: the client closed the connection'));
    req.on('error', endedEarly);
    req.on('close', () => {
      if (!req.complete) endedEarly();
    });
  });
}

/**
 * Deepest nesting a JSON body may have. Validation, masking, the history and /detokenize walk bodies recursively;
 * a few thousand levels (a 10 KB body) would overflow the stack in one of them.
 */
export const MAX_JSON_DEPTH = 100;

/** Whether `text` (already valid JSON) nests arrays and objects deeper than `max`; brackets in strings do not count. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to its closing quote, past escaped characters.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Text that may hold a number literal beyond a double's range: a 3-digit exponent or 309 digits in a row. */
const MAYBE_OUT_OF_RANGE = /\d[eE][+]?\d{3}|\d{309}/;

/** Whether a parsed value holds a number JSON.parse turned into ±Infinity. */
function holdsInfinity(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsInfinity);
}

/**
 * Parses a JSON request body, refusing what would otherwise be changed silently on the way in: invalid UTF-8 (it
 * would become U+FFFD) and numbers beyond a double's range (they would become Infinity, stored as null).
 */
export function parseJsonBody(received: BodyChunks): unknown {
  const body = joinChunks(received);
  if (body.length === 0) throw new ApiProblem(400, 'A JSON request body is required');
  if (!isUtf8(body)) throw new ApiProblem(400, 'The request body is not valid UTF-8');
  let text = body.toString('utf8');
  // RFC 8259 lets a parser ignore a byte order mark; JSON.parse does not.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8 quotes a snippet of the input in its message; that snippet may be card data, so keep only the reason.
    const reason = (error as Error).message.split(/, "|: "/)[0];
    throw new ApiProblem(400, `The request body is not valid JSON (${reason})`);
  }
  // A body too short to nest that deep is not scanned: the common case costs nothing.
  if (text.length > 2 * MAX_JSON_DEPTH && nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiProblem(400, `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (MAYBE_OUT_OF_RANGE.test(text) && holdsInfinity(value)) {
    throw new ApiProblem(400, 'The request body holds a number too large for a double (beyond ±1.8e308)');
  }
  return value;
}
