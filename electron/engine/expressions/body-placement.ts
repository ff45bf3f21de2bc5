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
import { type ExpressionSpan, FORM, JSON_STRING, PLAIN, expressionEnd, findExpressions, opensExpression } from './expression-scanner';

export type Placement = 'text' | 'form' | 'json-string' | 'json-whole-string' | 'json-bare';

export interface PlacedExpression {
  readonly span: ExpressionSpan;
  readonly placement: Placement;
  /** Raw range the rendered result replaces (wider than the span for a whole JSON string). */
  readonly replaceStart: number;
  readonly replaceEnd: number;
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
  for (let m = STRING_STOP.exec(text); m; m = STRING_STOP.exec(text)) {
    if (m[0] === '"') return { end: m.index, plain };
    plain = false;
    // Skip the escaped character (a control character is one unit, like any other).
    if (m[0] === '\\') STRING_STOP.lastIndex = m.index + 2;
  }
  return { end: text.length, plain };
}

/**
 * Raw positions where an expression may open: `{{`, or `{` written as a `\u007b` escape inside a string. Found with
 * native searches, so the scan below only looks closely at the few strings that hold one (a 100 KB body scanned
 * character by character cost milliseconds).
 */
function candidatePositions(text: string): number[] {
  const at: number[] = [];
  // indexOf, not a regular expression: over a 100 KB body a case-insensitive regex cost several times as much.
  for (const marker of ['{{', '\\u007b', '\\u007B']) {
    for (let i = text.indexOf(marker); i !== -1; i = text.indexOf(marker, i + 1)) at.push(i);
  }
  return at.sort((x, y) => x - y);
}

/** Whether the string literal that ended just before `after` is an object key (a `:` follows it, after spaces). */
function isObjectKey(text: string, after: number): boolean {
  let at = after;
  for (let c = text.charCodeAt(at); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++at));
  return text.charCodeAt(at) === 0x3a;
}

function placeInJson(text: string): PlacedExpression[] {
  const candidates = candidatePositions(text);
  const placed: PlacedExpression[] = [];
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
        const span = { start: candidate, end: expressionEnd(text, candidate, text.length, PLAIN), codec: PLAIN };
        placed.push({ span, placement: 'json-bare', replaceStart: span.start, replaceEnd: span.end });
        pos = span.end;
      } else {
        pos = candidate + 1;
      }
      continue;
    }
    const { end: close, plain } = stringEnd(text, quote + 1);
    const inside = candidateFrom(quote + 1);
    if (inside !== -1 && inside < close) {
      const spans = findExpressions(text, quote + 1, close, plain ? PLAIN : JSON_STRING);
      const [only] = spans;
      const whole = spans.length === 1 && only.start === quote + 1 && only.end === close && close < text.length;
      // A key stays a string whatever the result: an object in its place would break the JSON.
      if (whole && !isObjectKey(text, close + 1)) {
        placed.push({ span: only, placement: 'json-whole-string', replaceStart: quote, replaceEnd: close + 1 });
      } else {
        for (const span of spans) placed.push({ span, placement: 'json-string', replaceStart: span.start, replaceEnd: span.end });
      }
    }
    pos = close + 1;
  }
  return placed;
}

export function placeExpressions(text: string, kind: BodyKind): PlacedExpression[] {
  if (!mayHoldExpressions(text, kind)) return [];
  if (kind === 'json') return placeInJson(text);
  const placement = kind === 'form' ? 'form' : 'text';
  return findExpressions(text, 0, text.length, kind === 'form' ? FORM : PLAIN).map((span) => ({
    span,
    placement,
    replaceStart: span.start,
    replaceEnd: span.end,
  }));
}

/**
 * Cheap pre-check, on the text or on the raw bytes (the proxy asks before decoding), so a body without expressions
 * skips decoding, scanning and the body cache. Whatever the scan above may find must pass it.
 */
export function mayHoldExpressions(body: string | Buffer, kind: BodyKind): boolean {
  if (body.includes('{{')) return true;
  if (kind === 'form') return body.includes('%7B') || body.includes('%7b');
  return kind === 'json' && (body.includes('\\u007b') || body.includes('\\u007B'));
}

/** The longest marker mayHoldExpressions looks for (`\\u007b`), less one: as much as can lie before a chunk. */
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

/** The STRADDLE bytes on each side of the boundary before `chunks[at]` (fewer at the body's ends). */
function boundaryBytes(chunks: readonly Buffer[], at: number): Buffer {
  const before: number[] = [];
  for (let c = at - 1; c >= 0 && before.length < STRADDLE; c--) {
    for (let k = chunks[c].length - 1; k >= 0 && before.length < STRADDLE; k--) before.push(chunks[c][k]);
  }
  const after: number[] = [];
  for (let c = at; c < chunks.length && after.length < STRADDLE; c++) {
    for (let k = 0; k < chunks[c].length && after.length < STRADDLE; k++) after.push(chunks[c][k]);
  }
  return Buffer.from([...before.reverse(), ...after]);
}

/**
 * mayHoldExpressions over a body still in the chunks it arrived in. A marker may be split between chunks, and a
 * client's chunks can be a byte each, so each boundary is checked too: only where a marker may begin just before it,
 * since a 100 KB body arrives in some 25 chunks and copying bytes around every boundary showed in profiles.
 */
export function chunksMayHoldExpressions(chunks: readonly Buffer[], kind: BodyKind): boolean {
  for (const chunk of chunks) if (mayHoldExpressions(chunk, kind)) return true;
  for (let at = 1; at < chunks.length; at++) {
    if (markerMayStartBefore(chunks, at) && mayHoldExpressions(boundaryBytes(chunks, at), kind)) return true;
  }
  return false;
}
