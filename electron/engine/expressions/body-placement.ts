/**
 * Where each expression of a raw body sits, which decides how its result is written:
 * - text bodies (XML, plain, …): as is;
 * - form bodies: form-urlencoded (expressions may themselves be percent-encoded);
 * - JSON bodies, found with a scanner that tracks string literals:
 *   inside a string → JSON-escaped string content; a string value that is exactly one expression → the
 *   whole literal (quotes included) is replaced, by a JSON value when the result is an object or array
 *   (an object key stays a string);
 *   outside strings → a JSON literal, so `{"n": {{ id | to_number }} }` stays valid JSON.
 */
import type { BodyKind } from './body-kind';
import { type Codec, type ExpressionSpan, FORM, JSON_STRING, PLAIN, expressionEnd, forEachExpression, opensExpression } from './expression-scanner';

export type Placement = 'text' | 'form' | 'json-string' | 'json-whole-string' | 'json-bare';

/** An expression's span, and where its result goes. */
export interface PlacedExpression extends ExpressionSpan {
  readonly placement: Placement;
  /** Raw range the rendered result replaces (wider than the span for a whole JSON string). */
  readonly replaceStart: number;
  readonly replaceEnd: number;
}

/** One object per expression, always made here so that every placed expression has the same shape. */
function placed(start: number, end: number, codec: Codec, placement: Placement, replaceStart = start, replaceEnd = end): PlacedExpression {
  return { start, end, codec, placement, replaceStart, replaceEnd };
}

// Quotes end a string; a backslash escapes; control characters (invalid in JSON strings) must reach the JSON codec.
const STRING_STOP = /["\\\x00-\x1f]/g;

/**
 * Index of the quote closing the string whose content starts at `from` (text length if unterminated), and whether
 * the content is plain: without escapes or control characters it means what it says, so the plain codec reads it.
 */
function stringEnd(text: string, from: number): { end: number; plain: boolean } {
  let plain = true;
  STRING_STOP.lastIndex = from;
  // test, not exec: no match array per stop.
  while (STRING_STOP.test(text)) {
    const at = STRING_STOP.lastIndex - 1;
    const c = text.charCodeAt(at);
    if (c === 0x22) return { end: at, plain };
    plain = false;
    // Skip the escaped character (a control character is one unit, like any other).
    if (c === 0x5c) STRING_STOP.lastIndex = at + 2;
  }
  return { end: text.length, plain };
}

function positionsOf(text: string, marker: string, at: number[] = []): number[] {
  for (let i = text.indexOf(marker); i !== -1; i = text.indexOf(marker, i + 1)) at.push(i);
  return at;
}

/**
 * Raw positions where an expression may open: `{{`, or `{` written as a `\u007b` escape inside a string. Found with
 * native searches, so the scan below only looks closely at the few strings that hold one: scanning a large body
 * character by character is slow.
 */
function candidatePositions(text: string): number[] {
  // indexOf, not a regular expression: over a large body a case-insensitive regex costs several times as much.
  const at = positionsOf(text, '{{');
  // The escape is rare: one search for what its two cases share spares two searches and a sort.
  if (!text.includes('\\u007')) return at;
  for (const marker of ['\\u007b', '\\u007B']) positionsOf(text, marker, at);
  return at.sort((x, y) => x - y);
}

/**
 * Placing the expressions of a body's first part (see placeExpressions) needed what lies past it: they are placed
 * again over the whole body.
 */
export class PastTheText extends Error {}

/** Whether the string literal that ended just before `after` is an object key (a `:` follows it, after spaces). */
function isObjectKey(text: string, after: number, complete: boolean): boolean {
  let at = after;
  for (let c = text.charCodeAt(at); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++at));
  if (at >= text.length && !complete) throw new PastTheText();
  return text.charCodeAt(at) === 0x3a;
}

function placeInJson(text: string, complete: boolean): PlacedExpression[] {
  const candidates = candidatePositions(text);
  const found: PlacedExpression[] = [];
  let next = 0;
  /** The first candidate at or after `from`, or -1. */
  const candidateFrom = (from: number): number => {
    while (next < candidates.length && candidates[next] < from) next++;
    return next < candidates.length ? candidates[next] : -1;
  };
  let pos = 0;
  for (let candidate = candidateFrom(pos); candidate !== -1; candidate = candidateFrom(pos)) {
    const quote = text.indexOf('"', pos);
    if (quote === -1 || candidate < quote) {
      // Outside any string literal only a raw `{{` opens an expression.
      if (opensExpression(text, candidate, text.length, PLAIN)) {
        const end = expressionEnd(text, candidate, text.length, PLAIN);
        found.push(placed(candidate, end, PLAIN, 'json-bare'));
        pos = end;
      } else {
        pos = candidate + 1;
      }
      continue;
    }
    const { end: close, plain } = stringEnd(text, quote + 1);
    const inside = candidateFrom(quote + 1);
    if (inside !== -1 && inside < close) {
      if (close === text.length && !complete) throw new PastTheText();
      const codec = plain ? PLAIN : JSON_STRING;
      const from = quote + 1;
      // The usual case, a string that is exactly one expression, is checked first, so it needs no list of its own.
      const whole = close < text.length && opensExpression(text, from, close, codec) && expressionEnd(text, from, close, codec) === close;
      // A key stays a string whatever the result: an object in its place would break the JSON.
      if (whole && !isObjectKey(text, close + 1, complete)) {
        found.push(placed(from, close, codec, 'json-whole-string', quote, close + 1));
      } else {
        forEachExpression(text, from, close, codec, (start, end) => found.push(placed(start, end, codec, 'json-string')));
      }
    }
    pos = close + 1;
  }
  return found;
}

/**
 * @param complete false when `text` is only a body's first part, reaching past every marker of the body (markersEnd).
 *   The scans read forward, and what decides an expression's end lies before it; what would need to look past the
 *   part's end (the quote closing the string that holds an expression, the colon after one) throws PastTheText, and
 *   an expression not closed within the part throws an ExpressionError, so that the caller reads the whole body.
 */
export function placeExpressions(text: string, kind: BodyKind, complete = true): PlacedExpression[] {
  if (!mayHoldExpressions(text, kind)) return [];
  if (kind === 'json') return placeInJson(text, complete);
  const codec = kind === 'form' ? FORM : PLAIN;
  const placement = kind === 'form' ? 'form' : 'text';
  const found: PlacedExpression[] = [];
  forEachExpression(text, 0, text.length, codec, (start, end) => found.push(placed(start, end, codec, placement)));
  return found;
}

/** What may open an expression, by body kind: `{{`, and its escaped forms where the kind has them. */
const MARKERS: Record<BodyKind, readonly string[]> = {
  json: ['{{', '\\u007b', '\\u007B'],
  form: ['{{', '%7B', '%7b'],
  text: ['{{'],
};

/**
 * Cheap pre-check, on the text or on the raw bytes, so a body without expressions skips decoding, scanning and the
 * body cache. Whatever the scan above may find must pass it.
 */
export function mayHoldExpressions(body: string | Buffer, kind: BodyKind): boolean {
  for (const marker of MARKERS[kind]) if (body.includes(marker)) return true;
  return false;
}

/** Where the last thing in `text` that may open an expression starts, or -1. */
export function lastMarkerAt(text: string, kind: BodyKind): number {
  let at = -1;
  for (const marker of MARKERS[kind]) at = Math.max(at, text.lastIndexOf(marker));
  return at;
}

/** `text` less the first characters of a marker it ends in (a `{` that may be half of `{{`), when it ends in one. */
export function withoutCutMarker(text: string, kind: BodyKind): string {
  let end = text.length;
  for (const marker of MARKERS[kind]) {
    for (let n = marker.length - 1; n > 0; n--) {
      if (text.endsWith(marker.slice(0, n))) end = Math.min(end, text.length - n);
    }
  }
  return text.slice(0, end);
}

const bytesOf = (markers: readonly string[]) => markers.map((marker) => Buffer.from(marker));
/** The markers as bytes for the raw-body scan: Node encodes a string needle again on every search. */
const MARKER_BYTES: Record<BodyKind, readonly Buffer[]> = {
  json: bytesOf(MARKERS.json),
  form: bytesOf(MARKERS.form),
  text: bytesOf(MARKERS.text),
};

/** Where the last marker in `bytes` ends, or -1. */
function lastMarkerEnd(bytes: Buffer, kind: BodyKind): number {
  let end = -1;
  for (const marker of MARKER_BYTES[kind]) {
    // Node searches forward faster than backward, and most chunks hold no marker.
    const at = bytes.includes(marker) ? bytes.lastIndexOf(marker) : -1;
    if (at !== -1) end = Math.max(end, at + marker.length);
  }
  return end;
}

/** The longest marker (`\\u007b`), less one: as much of one as can lie on either side of a chunk boundary. */
const STRADDLE = 5;

/** Whether a byte begins a marker: `{` (`{{`), `%` (`%7B`) or `\` (`\u007b`). */
const startsMarker = (byte: number) => byte === 0x7b || byte === 0x25 || byte === 0x5c;

/** Whether a marker may begin in the STRADDLE bytes before `chunks[at]`, which may lie in several small chunks. */
function markerMayStartBefore(chunks: readonly Buffer[], at: number): boolean {
  let seen = 0;
  for (let c = at - 1; c >= 0; c--) {
    for (let k = chunks[c].length - 1; k >= 0; k--) {
      if (startsMarker(chunks[c][k])) return true;
      if (++seen === STRADDLE) return false;
    }
  }
  return false;
}

/** The STRADDLE bytes on each side of the boundary before `chunks[at]` (fewer at the body's ends), and how many lie before it. */
function boundaryBytes(chunks: readonly Buffer[], at: number): { bytes: Buffer; before: number } {
  const before: number[] = [];
  for (let c = at - 1; c >= 0 && before.length < STRADDLE; c--) {
    for (let k = chunks[c].length - 1; k >= 0 && before.length < STRADDLE; k--) before.push(chunks[c][k]);
  }
  const after: number[] = [];
  for (let c = at; c < chunks.length && after.length < STRADDLE; c++) {
    for (let k = 0; k < chunks[c].length && after.length < STRADDLE; k++) after.push(chunks[c][k]);
  }
  return { bytes: Buffer.from([...before.reverse(), ...after]), before: before.length };
}

/**
 * How far into a body, still in the chunks it arrived in, its markers reach: the offset just past the last one, or 0
 * when it has none (mayHoldExpressions on the joined bytes is then false). Every expression opens before it, so the
 * bytes after it can be forwarded without being looked at. Scanned from the end, chunk by chunk; a marker may be
 * split between chunks (a client's chunks can be a byte each), so each boundary is checked too, but only where a
 * marker may begin just before it: copying bytes around every boundary of a large body would cost more than the scan.
 */
export function markersEnd(chunks: readonly Buffer[], kind: BodyKind): number {
  let end = 0;
  for (const chunk of chunks) end += chunk.length;
  for (let at = chunks.length - 1; at >= 0; at--) {
    const chunkEnd = end;
    end -= chunks[at].length;
    // The later of the last marker inside this chunk and one split by the boundary after it.
    let last = lastMarkerEnd(chunks[at], kind);
    if (last !== -1) last += end;
    if (at + 1 < chunks.length && markerMayStartBefore(chunks, at + 1)) {
      const boundary = boundaryBytes(chunks, at + 1);
      const across = lastMarkerEnd(boundary.bytes, kind);
      if (across !== -1) last = Math.max(last, chunkEnd - boundary.before + across);
    }
    if (last !== -1) return last;
  }
  return 0;
}
