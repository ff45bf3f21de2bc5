/** A template as literal raw text interleaved with slots; shared by body and token-scope templates. */
import type { PlacedExpression } from './body-placement';

export type Segments<S> = readonly (string | S)[];

/** Raw text outside the placed expressions stays untouched (byte-for-byte forwarding). */
export function interleave<S>(text: string, placed: readonly PlacedExpression[], slot: (p: PlacedExpression) => S): Segments<S> {
  const segments: (string | S)[] = [];
  let pos = 0;
  for (const p of placed) {
    if (p.replaceStart > pos) segments.push(text.slice(pos, p.replaceStart));
    segments.push(slot(p));
    pos = p.replaceEnd;
  }
  if (pos < text.length) segments.push(text.slice(pos));
  return segments;
}

/** The slot when the template is exactly one expression and nothing else. */
export function loneSlot<S>(segments: Segments<S>): S | undefined {
  const [only] = segments;
  return segments.length === 1 && typeof only !== 'string' ? only : undefined;
}

export function joinSegments<S>(segments: Segments<S>, write: (slot: S) => string): string {
  let out = '';
  for (const s of segments) out += typeof s === 'string' ? s : write(s);
  return out;
}
