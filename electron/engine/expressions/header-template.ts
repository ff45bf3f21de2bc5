/**
 * A request header value with expressions rooted at `proxy` (the vendor's proxy expressions, e.g.
 * `{{ proxy.request.body | hmac: 'sha-256', proxy.config.key }}`): those are evaluated over the `proxy` object of the
 * call; every other `{{ … }}` (a token expression) stays as written, since headers are never detokenized.
 */
import { type PlacedExpression, placeExpressions } from './body-placement';
import { ExpressionError } from './expression-error';
import { expressionSource } from './expression-scanner';
import type { CompiledExpression, LiquidRuntime } from './liquid-runtime';
import { interleave } from './segments';
import { TokenTemplate } from './token-template';

/** `{{ proxy…`: the root is the variable `proxy` itself, not a name that starts with it. */
const PROXY_ROOTED = /^\{\{\s*proxy(?![A-Za-z0-9_])/;

/** Whether a header value holds an expression that the proxy evaluates (cheap: for every header with a `{{`). */
export const holdsProxyExpression = (value: string): boolean => /\{\{\s*proxy(?![A-Za-z0-9_])/.test(value);

/** Whether a header value holds a `{{` that starts anything else: it goes out as written. */
export const holdsLiteralExpression = (value: string): boolean => /\{\{(?!\s*proxy(?![A-Za-z0-9_]))/.test(value);

/**
 * The template of a header value: its proxy expressions evaluated (renderText), every other `{{ … }}` kept as text.
 * Throws ExpressionError for a proxy expression that does not parse.
 */
export function compileHeaderTemplate(text: string, runtime: LiquidRuntime): TokenTemplate {
  let placed: PlacedExpression[];
  try {
    placed = placeExpressions(text, 'text');
  } catch (error) {
    // A `{{` never closed is text, as it was before proxy expressions existed.
    if (!(error instanceof ExpressionError)) throw error;
    placed = [];
  }
  const segments = interleave(text, placed, (p): CompiledExpression | string => {
    const source = expressionSource(text, p);
    return PROXY_ROOTED.test(source) ? runtime.compile(source, source.slice(2, -2)) : source;
  });
  return new TokenTemplate(segments, runtime);
}
