/**
 * The one Liquid instance behind every expression: our filters registered, unknown filters rejected at
 * parse time, own-property lookups only. Expressions are parsed once into liquidjs `Value`s (a filtered
 * value, i.e. the inside of `{{ … }}`) and evaluated synchronously to their raw result, not to text, so
 * callers can tell an object result from a string one.
 */
import { Context, type Expression, type FilterImplOptions, Liquid, Tokenizer, TypeGuards, Value, toValue, toValueSync } from 'liquidjs';
import { BudgetExceeded, type ExpressionBudget, type FilterThis, budgetOf } from './expression-budget';
import { ExpressionError, ExpressionOverBudget, FilterFailure } from './expression-error';
import type { VaultFilterName } from '../../../shared/expressions/filters';
import { CUSTOM_FILTERS, LAST_ONLY_FILTERS, jsonFilterFor } from './filters';

/** One filter of a direct chain: our own filter with its literal arguments bound. */
type DirectStep = (value: unknown, scope: EvaluationScope) => unknown;

export interface CompiledExpression {
  /** The `{{ … }}` text as written, for error messages. */
  readonly source: string;
  readonly value: Value;
  /**
   * Set when the expression is a plain property path followed only by our own filters with literal arguments
   * (`data.number | reveal_last: 4`, `token_value | json: '$.number'`): the forms masks and proxy bodies use. It
   * gives what Liquid's interpreter gives, without the interpreter, which costs several times the work itself.
   */
  readonly direct?: (scope: EvaluationScope) => unknown;
}

/**
 * The variables one render evaluates against, and the budget of the request it belongs to. Liquid's context (whose
 * memory limiter is that budget) is made only when an expression or a filter needs it.
 */
export class EvaluationScope implements FilterThis {
  private liquidContext: Context | undefined;

  constructor(
    readonly variables: Readonly<Record<string, unknown>>,
    private readonly liquid: Liquid,
    readonly budget: ExpressionBudget,
  ) {}

  get context(): Context {
    return (this.liquidContext ??= new Context(this.variables, this.liquid.options, {}, { liquid: this.liquid, memoryLimit: this.budget.asLimiter() }));
  }
}

/** A Liquid filter that first charges its call and its input to the request's budget. */
function metered(filter: FilterImplOptions): FilterImplOptions {
  const handler = typeof filter === 'function' ? filter : filter.handler;
  const charged: typeof handler = function (this: FilterThis, value: unknown, ...args: unknown[]) {
    budgetOf(this).filterCall(value);
    return handler.call(this as never, value, ...args) as unknown;
  };
  return typeof filter === 'function' ? charged : { ...filter, handler: charged };
}

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

// Property names Liquid reads specially (sizes, first and last elements) rather than as own properties.
const SPECIAL_PROPERTIES = new Set(['size', 'first', 'last']);

/**
 * The names of a plain `a.b["c"]` path. Liquid (with ownPropertyOnly) reads such a path by own properties only: a
 * missing one is undefined, and a path through null or undefined stops at that value. That is all the direct
 * evaluation does, so numeric indexes and the special names stay with Liquid.
 */
function directPath(value: Value): readonly string[] | undefined {
  const [initial, ...more] = value.initial.postfix;
  if (more.length > 0 || !TypeGuards.isPropertyAccessToken(initial) || initial.variable) return undefined;
  const names: string[] = [];
  for (const prop of initial.props) {
    if (!TypeGuards.isWordToken(prop) && !TypeGuards.isQuotedToken(prop)) return undefined;
    if (SPECIAL_PROPERTIES.has(prop.content)) return undefined;
    names.push(prop.content);
  }
  return names;
}

const isVaultFilter = (name: string): name is VaultFilterName => Object.hasOwn(CUSTOM_FILTERS, name);

/** Our filter `name` with literal arguments, as Liquid would call it; undefined for anything else. */
function directStep(filter: Value['filters'][number]): DirectStep | undefined {
  if (!isVaultFilter(filter.name)) return undefined;
  const args: unknown[] = [];
  for (const arg of filter.args) {
    if (!TypeGuards.isNumberToken(arg) && !TypeGuards.isQuotedToken(arg)) return undefined;
    args.push(arg.content);
  }
  // The json filter's JSONPath is known now, so its plain-path form is worked out once.
  const json = filter.name === 'json' ? jsonFilterFor(args[0]) : undefined;
  const handler = CUSTOM_FILTERS[filter.name];
  const run: DirectStep = json ? (input, scope) => json(input, scope.budget) : (input, scope) => handler.call(scope, input, ...args);
  return (input, scope) => {
    scope.budget.filterCall(input);
    return run(input, scope);
  };
}

function directEvaluation(value: Value): CompiledExpression['direct'] {
  const names = directPath(value);
  const steps = value.filters.map(directStep);
  if (!names || steps.some((step) => step === undefined)) return undefined;
  return (scope) => {
    let result: unknown = scope.variables;
    for (const name of names) {
      if (result === null || result === undefined) break;
      result = Object.hasOwn(result, name) ? (result as Record<string, unknown>)[name] : undefined;
    }
    for (const step of steps as DirectStep[]) result = step(result, scope);
    return result;
  };
}

function parseReason(error: unknown): string {
  const message = error instanceof Error ? error.message.split('\n')[0] : 'cannot be parsed';
  // Positions would point into the rewritten source the caller never wrote.
  return message.replace(/, line:\d+, col:\d+$/, '');
}

function evaluationError(source: string, error: unknown): ExpressionError {
  if (error instanceof BudgetExceeded) return new ExpressionOverBudget(source, error.message);
  // Other errors' messages may quote values.
  return new ExpressionError(source, error instanceof FilterFailure ? error.message : `evaluation failed (${error instanceof Error ? error.name : 'error'})`);
}

const TRAILING_PIPE = /\|\s*$/;

/** One `json` filter an evaluation ran: the JSONPath written in it, what it was given and what it gave. */
export interface JsonStep {
  readonly path: string;
  /** Whether it was the first filter, given the expression's own value (a token's data, or the whole token). */
  readonly first: boolean;
  readonly input: unknown;
  readonly output: unknown;
}

export class LiquidRuntime {
  private readonly liquid = new Liquid({ strictFilters: true, ownPropertyOnly: true });

  constructor() {
    for (const [name, filter] of Object.entries(CUSTOM_FILTERS)) this.liquid.registerFilter(name, filter);
    // Liquid's own filters too: each is charged before it runs.
    for (const [name, filter] of Object.entries(this.liquid.filters)) this.liquid.registerFilter(name, metered(filter));
  }

  /** Parses `liquidText` (a filtered value such as `data.number | reveal_last: 4`); errors name `source`. */
  compile(source: string, liquidText: string): CompiledExpression {
    let value: Value;
    try {
      const tokenizer = new Tokenizer(liquidText, this.liquid.options.operators, undefined, undefined, this.liquid.options.groupedExpressions);
      const token = tokenizer.readFilteredValue();
      // Liquid itself accepts "{{ a b }}" (and renders b); a typo there should not pass silently.
      if (!isOneValue(token.initial)) throw new Error('expected one value before the filters');
      // Liquid reads a trailing "|" as no filter at all; a filter name was left out.
      if (TRAILING_PIPE.test(liquidText)) throw new Error('expected filter name after the last "|"');
      value = new Value(token, this.liquid);
    } catch (error) {
      throw new ExpressionError(source, parseReason(error));
    }
    const misplaced = value.filters.slice(0, -1).find((f) => LAST_ONLY_FILTERS.has(f.name));
    if (misplaced) throw new ExpressionError(source, `${misplaced.name} must be the last filter`);
    const direct = directEvaluation(value);
    return direct ? { source, value, direct } : { source, value };
  }

  /** The scope of one render; expressions evaluated in it share its Liquid context and spend from `budget`. */
  scope(variables: Readonly<Record<string, unknown>>, budget: ExpressionBudget): EvaluationScope {
    return new EvaluationScope(variables, this.liquid, budget);
  }

  /**
   * Evaluates `expression` filter by filter through Liquid, and answers the `json` filters with a literal JSONPath it
   * ran, in order: why an expression gives what it gives. Throws as evaluate does.
   */
  jsonSteps(expression: CompiledExpression, scope: EvaluationScope): JsonStep[] {
    const steps: JsonStep[] = [];
    try {
      const { initial, filters } = expression.value;
      let value = toValueSync(initial.evaluate(scope.context, false));
      filters.forEach((filter, i) => {
        const input = value;
        value = toValueSync(filter.render(value, scope.context));
        const [path] = filter.args;
        if (filter.name !== 'json' || path === undefined || Array.isArray(path) || !TypeGuards.isQuotedToken(path)) return;
        steps.push({ path: path.content, first: i === 0, input, output: value });
      });
    } catch (error) {
      throw evaluationError(expression.source, error);
    }
    return steps;
  }

  evaluate(expression: CompiledExpression, scope: EvaluationScope): unknown {
    try {
      if (expression.direct) return expression.direct(scope);
      return toValue(toValueSync(expression.value.value(scope.context, false)));
    } catch (error) {
      throw evaluationError(expression.source, error);
    }
  }
}
