/**
 * Where each expression of a raw body sits, which decides how its result is written:
 * - text bodies (XML, plain, …): as is;
 * - form bodies: form-urlencoded (expressions may themselves be percent-encoded);
 * - JSON bodies, found with a scanner that tracks string literals:
 *   inside a string → JSON-escaped string content; a string that is exactly one expression → the
 *   whole literal (quotes included) is replaced, by a JSON value when the result is an object or array;
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

const QUOTE = 0x22;
const STRING_STOP = /["\\]/g;

/** Index of the quote closing the string whose content starts at `from` (text length if unterminated). */
function stringEnd(text: string, from: number): number {
  STRING_STOP.lastIndex = from;
  for (let m = STRING_STOP.exec(text); m; m = STRING_STOP.exec(text)) {
    if (m[0] === '"') return m.index;
    STRING_STOP.lastIndex = m.index + 2; // skip the escaped character
  }
  return text.length;
}

function placeInJson(text: string): PlacedExpression[] {
  const placed: PlacedExpression[] = [];
  let pos = 0;
  while (pos < text.length) {
    if (text.charCodeAt(pos) === QUOTE) {
      const close = stringEnd(text, pos + 1);
      const spans = findExpressions(text, pos + 1, close, JSON_STRING);
      const [only] = spans;
      if (spans.length === 1 && only.start === pos + 1 && only.end === close && close < text.length) {
        placed.push({ span: only, placement: 'json-whole-string', replaceStart: pos, replaceEnd: close + 1 });
      } else {
        for (const span of spans) placed.push({ span, placement: 'json-string', replaceStart: span.start, replaceEnd: span.end });
      }
      pos = close + 1;
    } else if (opensExpression(text, pos, text.length, PLAIN)) {
      const span = { start: pos, end: expressionEnd(text, pos, text.length, PLAIN), codec: PLAIN };
      placed.push({ span, placement: 'json-bare', replaceStart: span.start, replaceEnd: span.end });
      pos = span.end;
    } else {
      pos++;
    }
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

/** Cheap pre-check so text without expressions skips scanning (and the body cache). */
export function mayHoldExpressions(text: string, kind: BodyKind): boolean {
  if (text.includes('{{')) return true;
  if (kind === 'form') return /%7b/i.test(text);
  return kind === 'json' && /\\u007b/i.test(text);
}
