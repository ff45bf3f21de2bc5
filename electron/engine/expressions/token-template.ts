/**
 * Templates over one token (its `mask`, `fingerprint_expression`, `search_indexes`): plain Liquid
 * expressions such as `{{ data.number | reveal_last: 4 }}` with the token's fields (`data`, `metadata`, …)
 * in scope. Like body templates, only `{{ … }}` is evaluated; `{%` tags stay text.
 */
import { placeExpressions } from './body-placement';
import { expressionSource } from './expression-scanner';
import type { CompiledExpression, LiquidRuntime } from './liquid-runtime';
import { toJsonValue, toText } from './rendered-value';
import { type Segments, interleave, joinSegments, loneSlot } from './segments';
import type { TokenRecord } from './token-record';

export class TokenTemplate {
  private constructor(
    private readonly segments: Segments<CompiledExpression>,
    private readonly runtime: LiquidRuntime,
  ) {}

  static compile(text: string, runtime: LiquidRuntime): TokenTemplate {
    const segments = interleave(text, placeExpressions(text, 'text'), (p) => {
      const source = expressionSource(text, p);
      return runtime.compile(source, source.slice(2, -2));
    });
    return new TokenTemplate(segments, runtime);
  }

  /**
   * A string that is exactly one expression keeps its result's JSON type, so a card mask's
   * `"{{ data.expiration_month }}"` stays the number 12, as the hosted service returns it; text otherwise.
   */
  renderValue(token: TokenRecord): unknown {
    const lone = loneSlot(this.segments);
    return lone ? toJsonValue(this.runtime.evaluate(lone, this.runtime.scope(token))) : this.renderText(token);
  }

  renderText(token: TokenRecord): string {
    const scope = this.runtime.scope(token);
    return joinSegments(this.segments, (expression) => toText(this.runtime.evaluate(expression, scope)));
  }
}
