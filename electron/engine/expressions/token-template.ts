/**
 * Templates over one token (its `mask`, `fingerprint_expression`, `search_indexes`): plain Liquid
 * expressions such as `{{ data.number | reveal_last: 4 }}` with the token's fields (`data`, `metadata`, …)
 * in scope. Like body templates, only `{{ … }}` is evaluated; `{%` tags stay text.
 */
import { placeExpressions } from './body-placement';
import type { ExpressionBudget } from './expression-budget';
import { expressionSource } from './expression-scanner';
import type { CompiledExpression, LiquidRuntime } from './liquid-runtime';
import { toJsonValue, toText } from './rendered-value';
import { type Segments, interleave, joinSegments, loneSlot } from './segments';

/** What a template sees: a token's fields (a mask), or the variables of a proxy's transform (`res`, `proxy`, …). */
export type TemplateScope = Readonly<Record<string, unknown>>;

/**
 * `transform_identifier: 'card'`, the vendor's head for a token a proxy's tokenize transform made, is Liquid's
 * `transform_identifier['card']`: the transform's variables hold those tokens by identifier.
 */
const MADE_TOKEN_HEAD = /^(\s*)transform_identifier\s*:\s*('[A-Za-z0-9_-]+'|"[A-Za-z0-9_-]+")/;
const liquidOf = (inner: string) => inner.replace(MADE_TOKEN_HEAD, '$1transform_identifier[$2]');

export class TokenTemplate {
  /** @param segments literal text and the expressions evaluated between it (see compile, and compileHeaderTemplate) */
  constructor(
    private readonly segments: Segments<CompiledExpression>,
    private readonly runtime: LiquidRuntime,
  ) {}

  static compile(text: string, runtime: LiquidRuntime): TokenTemplate {
    const segments = interleave(text, placeExpressions(text, 'text'), (p) => {
      const source = expressionSource(text, p);
      return runtime.compile(source, liquidOf(source.slice(2, -2)));
    });
    return new TokenTemplate(segments, runtime);
  }

  /**
   * A string that is exactly one expression keeps its result's JSON type, so a card mask's
   * `"{{ data.expiration_month }}"` stays the number 12, as the hosted service returns it; text otherwise.
   */
  renderValue(token: TemplateScope, budget: ExpressionBudget): unknown {
    const lone = loneSlot(this.segments);
    if (!lone) return this.renderText(token, budget);
    const value = this.runtime.evaluate(lone, this.runtime.scope(token, budget));
    budget.written(toText(value).length, lone.source);
    return toJsonValue(value);
  }

  renderText(token: TemplateScope, budget: ExpressionBudget): string {
    const scope = this.runtime.scope(token, budget);
    return joinSegments(this.segments, (expression) => {
      const text = toText(this.runtime.evaluate(expression, scope));
      budget.written(text.length, expression.source);
      return text;
    });
  }
}
