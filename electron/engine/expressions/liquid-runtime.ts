/**
 * The one Liquid instance behind every expression: our filters registered, unknown filters rejected at
 * parse time, own-property lookups only. Expressions are parsed once into liquidjs `Value`s (a filtered
 * value, i.e. the inside of `{{ … }}`) and evaluated synchronously to their raw result, not to text, so
 * callers can tell an object result from a string one.
 */
import { Context, type Expression, Liquid, Tokenizer, TypeGuards, Value, toValue, toValueSync } from 'liquidjs';
import { ExpressionError, FilterFailure } from './expression-error';
import { CUSTOM_FILTERS, LAST_ONLY_FILTERS, jsonPathValue } from './filters';
import { simplePathNames } from './simple-json-path';

/** `<variable> | json: '<path>'` where the path is a plain `$.a.b` (see simple-json-path). */
export interface JsonPathShortcut {
  readonly variable: string;
  readonly path: string;
  readonly names: readonly string[];
}

export interface CompiledExpression {
  /** The `{{ … }}` text as written, for error messages. */
  readonly source: string;
  readonly value: Value;
  /**
   * Set when the expression is just `<variable> | json: '$.a.b'`, the form most body expressions take: a caller
   * holding the variable's value evaluates it with `evaluateJsonPath`, skipping Liquid's interpreter, which costs
   * several times the lookup.
   */
  readonly jsonPath?: JsonPathShortcut;
}

// Characters a single evaluation context may allocate through filters (pad_left, split, append, …).
const MEMORY_LIMIT = 16 * 1024 * 1024;

/** Whether the postfix expression reduces to exactly one value (operands joined by operators, `not` unary). */
function isOneValue(expression: Expression): boolean {
  let depth = 0;
  for (const token of expression.postfix) {
    if (!TypeGuards.isOperatorToken(token)) depth++;
    else if (token.operator !== 'not') depth--;
    if (depth < 1) return false;
  }
  return depth === 1;
}

/** The `jsonPath` shortcut of a parsed expression, when it has the one form the shortcut handles. */
function jsonPathShortcut(value: Value): JsonPathShortcut | undefined {
  const [filter, ...moreFilters] = value.filters;
  const [initial, ...moreOperands] = value.initial.postfix;
  if (!filter || moreFilters.length > 0 || filter.name !== 'json' || filter.args.length !== 1) return undefined;
  const [path] = filter.args;
  if (!TypeGuards.isQuotedToken(path) || moreOperands.length > 0 || !TypeGuards.isPropertyAccessToken(initial)) return undefined;
  const [variable, ...props] = initial.props;
  if (initial.variable || props.length > 0 || !TypeGuards.isWordToken(variable)) return undefined;
  const names = simplePathNames(path.content);
  return names && { variable: variable.content, path: path.content, names };
}

function parseReason(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0] : 'cannot be parsed';
  // Positions would point into the rewritten source the caller never wrote.
  return message.replace(/, line:\d+, col:\d+$/, '');
}

function evaluationReason(error: unknown): string {
  if (error instanceof FilterFailure) return error.message;
  // liquidjs' resource limits have fixed messages ("memory alloc limit exceeded"); other messages may quote values.
  if (error instanceof Error && /^[a-z ]+ limit exceeded$/.test(error.message)) return error.message;
  return `evaluation failed (${error instanceof Error ? error.name : 'error'})`;
}

export class LiquidRuntime {
  private readonly liquid = new Liquid({ strictFilters: true, ownPropertyOnly: true, memoryLimit: MEMORY_LIMIT });

  constructor() {
    for (const [name, filter] of Object.entries(CUSTOM_FILTERS)) this.liquid.registerFilter(name, filter);
  }

  /** Parses `liquidText` (a filtered value such as `data.number | reveal_last: 4`); errors name `source`. */
  compile(source: string, liquidText: string): CompiledExpression {
    let value: Value;
    try {
      const tokenizer = new Tokenizer(liquidText, this.liquid.options.operators, undefined, undefined, this.liquid.options.groupedExpressions);
      const token = tokenizer.readFilteredValue();
      // Liquid itself accepts "{{ a b }}" (and renders b); a typo there should not pass silently.
      if (!isOneValue(token.initial)) throw new Error('expected one value before the filters');
      value = new Value(token, this.liquid);
    } catch (error) {
      throw new ExpressionError(source, parseReason(error));
    }
    const misplaced = value.filters.slice(0, -1).find((f) => LAST_ONLY_FILTERS.has(f.name));
    if (misplaced) throw new ExpressionError(source, `${misplaced.name} must be the last filter`);
    const jsonPath = jsonPathShortcut(value);
    return jsonPath ? { source, value, jsonPath } : { source, value };
  }

  /** A context over `scope`; one per render, since it also meters the memory that render's filters use. */
  context(scope: object): Context {
    return new Context(scope, this.liquid.options, {}, { liquid: this.liquid });
  }

  evaluate(expression: CompiledExpression, context: Context): unknown {
    try {
      return toValue(toValueSync(expression.value.value(context, false)));
    } catch (error) {
      throw new ExpressionError(expression.source, evaluationReason(error));
    }
  }

  /**
   * What `evaluate` gives for an expression with a `jsonPath` shortcut when its variable holds `input`: Liquid
   * would hand a JSON value to our `json` filter unchanged, so the filter is called directly.
   */
  evaluateJsonPath(expression: CompiledExpression, shortcut: JsonPathShortcut, input: unknown): unknown {
    try {
      return jsonPathValue(input, shortcut.path, shortcut.names);
    } catch (error) {
      throw new ExpressionError(expression.source, evaluationReason(error));
    }
  }
}
