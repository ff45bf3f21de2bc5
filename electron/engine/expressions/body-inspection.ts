/**
 * A body's expressions one by one, for the workbench's checks: where each sits and what it compiles to, or why it does
 * not, with the same placement and parser a render uses. Where a render stops at the first bad expression, this goes
 * on, so the editor can flag every one.
 */
import type { BodyKind } from './body-kind';
import { type Placement, placeExpressions } from './body-placement';
import { ExpressionError, UnclosedExpression } from './expression-error';
import { expressionSource } from './expression-scanner';
import type { TokenExpression } from './token-reference';

interface Span {
  /** Raw extent in the body. */
  readonly start: number;
  readonly end: number;
}

/** An expression that compiles, or one that does not with the 400 a request holding it gets (unclosed: not placed). */
export type InspectedExpression =
  | (Span & { readonly placement: Placement; readonly expression: TokenExpression; readonly error?: undefined })
  | (Span & { readonly placement: Placement | null; readonly expression?: undefined; readonly error: ExpressionError });

/** Past this many unclosed expressions the rest of the body is not looked at again: each one costs a placement. */
const MAX_UNCLOSED = 20;

/**
 * An unclosed expression stops placement; its opening character is blanked (a copy of the body, same length, so every
 * position stays) and the body placed again, so the expressions around it are still found.
 */
function placeAround(text: string, kind: BodyKind, unclosed: UnclosedExpression[]) {
  let scanned = text;
  for (;;) {
    try {
      return placeExpressions(scanned, kind);
    } catch (error) {
      if (!(error instanceof UnclosedExpression) || unclosed.length >= MAX_UNCLOSED) throw error;
      unclosed.push(error);
      scanned = `${scanned.slice(0, error.start)} ${scanned.slice(error.start + 1)}`;
    }
  }
}

export function inspectExpressions(text: string, kind: BodyKind, compile: (source: string) => TokenExpression): InspectedExpression[] {
  const unclosed: UnclosedExpression[] = [];
  const found: InspectedExpression[] = placeAround(text, kind, unclosed).map(({ start, end, placement, ...span }) => {
    try {
      return { start, end, placement, expression: compile(expressionSource(text, { start, end, ...span })) };
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return { start, end, placement, error };
    }
  });
  for (const error of unclosed) {
    // Up to the end of its line: the rest of a text body would be one long mark.
    const line = text.indexOf('\n', error.start);
    found.push({ start: error.start, end: line === -1 ? error.limit : Math.min(line, error.limit), placement: null, error });
  }
  return found.sort((a, b) => a.start - b.start);
}
