/**
 * What one request's expressions may spend, all of them together: a proxy body's, a /detokenize body's, or the
 * templates a token write renders (its mask, fingerprint expression and search indexes; every token of a /tokenize).
 * Expressions run on the engine's only thread, so without a bound one request can hold every other for minutes or
 * exhaust the heap. The bounds are far above what real templates use (a card mask spends a few dozen units) and far
 * below what would hold other requests for long or strain the heap. Work that cannot be interrupted once started (a
 * padding, a split, a JSONPath query) is charged before it runs.
 */
import type { Context } from 'liquidjs';
import { ExpressionOverBudget, FilterFailure } from './expression-error';

export const EXPRESSION_BUDGET = {
  /** Characters and items filters read and produce (a filter's input, what pad_left and split allocate, …). */
  memory: 2 * 1024 * 1024,
  /**
   * Filter calls, the items of each array a filter is given (where_exp and its kind evaluate an expression per item,
   * the costliest work per unit), and the nodes a JSONPath query may visit.
   */
  steps: 25_000,
  /** Characters of the expressions' results, as written into the body or template. */
  output: 16 * 1024 * 1024,
} as const;

/** Thrown where a request's expressions would spend more than their budget; its message names the bound. */
export class BudgetExceeded extends FilterFailure {}

const ALL_TOGETHER = "all of the request's expressions together";

/** The size a filter's input is charged at: a string's characters, an array's items, bytes' length. */
function sizeOf(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 0;
}

/**
 * One request's budget. It is also the memory limiter of the Liquid contexts its expressions are evaluated in, so
 * Liquid's own filters charge what they allocate (`use`) to it.
 */
export class ExpressionBudget {
  private memory = 0;
  private steps = 0;
  private output = 0;

  /** Liquid's limiter interface: `count` characters or items are about to be allocated. */
  use(count: number): void {
    if (!(count > 0)) return;
    this.memory += count;
    if (this.memory > EXPRESSION_BUDGET.memory) {
      throw new BudgetExceeded(`its filters would read or produce more than ${EXPRESSION_BUDGET.memory} characters or items (${ALL_TOGETHER})`);
    }
  }

  /** `count` steps are about to be taken: filter calls, items visited, JSONPath nodes. */
  step(count = 1): void {
    this.steps += count;
    if (this.steps > EXPRESSION_BUDGET.steps) {
      throw new BudgetExceeded(`its filters and JSONPath queries would take more than ${EXPRESSION_BUDGET.steps} steps (${ALL_TOGETHER})`);
    }
  }

  /**
   * A filter is called on `input`: a step, and a step per item of an array, which bounds the work of the filters
   * that visit each item, whatever they do there; and the input's size, which bounds the work of any filter.
   */
  filterCall(input: unknown): void {
    this.step(Array.isArray(input) ? 1 + input.length : 1);
    this.use(sizeOf(input));
  }

  /**
   * `chars` characters of the result of `expression` (its source) are written out. Charged after the evaluation, so
   * it names the expression itself.
   */
  written(chars: number, expression: string): void {
    this.output += chars;
    if (this.output > EXPRESSION_BUDGET.output) {
      throw new ExpressionOverBudget(expression, `the results would be more than ${EXPRESSION_BUDGET.output} characters (${ALL_TOGETHER})`);
    }
  }

  /** This budget as a Liquid context's memory limiter (the type Liquid declares is a class of its own). */
  asLimiter(): Context['memoryLimit'] {
    return this as unknown as Context['memoryLimit'];
  }
}

/** What a filter runs on: Liquid's filter context, or the scope of a direct evaluation; both lead to the budget. */
export type FilterThis = { readonly context: Context; readonly budget?: ExpressionBudget };

/** The budget of a direct evaluation's scope, or of a Liquid context made for an evaluation (its memory limiter). */
export function budgetOf(self: FilterThis): ExpressionBudget {
  return self.budget ?? (self.context.memoryLimit as unknown as ExpressionBudget);
}
