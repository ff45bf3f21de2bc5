import { ApiProblem } from '../server/problem';

/**
 * A template expression that cannot be parsed or evaluated. It is a 400 problem, so a route can let it
 * propagate. `expression` is the `{{ … }}` source text and `reason` says what is wrong; neither ever
 * carries token values (templates hold token ids and filter arguments, never plaintext).
 */
export class ExpressionError extends ApiProblem {
  constructor(
    readonly expression: string,
    readonly reason: string,
    detail = `Invalid expression ${expression}: ${reason}`,
  ) {
    super(400, detail);
    this.name = 'ExpressionError';
  }
}

/** An expression not closed with `}}` before `limit`, the end of what could hold it (its JSON string, or the body). */
export class UnclosedExpression extends ExpressionError {
  constructor(
    expression: string,
    /** Raw positions: where its `{{` opens, and where the search for its `}}` stopped. */
    readonly start: number,
    readonly limit: number,
  ) {
    super(expression, 'the expression is not closed with }}');
    this.name = 'UnclosedExpression';
  }
}

/** An expression that would spend more than its request's budget (see expression-budget); `reason` names the bound. */
export class ExpressionOverBudget extends ExpressionError {
  constructor(expression: string, reason: string) {
    super(expression, reason, `Expression ${expression} is over the request's expression budget: ${reason}`);
    this.name = 'ExpressionOverBudget';
  }
}

/**
 * Thrown by our filters. Its message is written by us without input values, so it is safe to show
 * as an ExpressionError reason; messages of any other error raised while evaluating are not shown.
 */
export class FilterFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterFailure';
  }
}

/** Keeps quoted template text in messages short and single-line. */
export function brief(text: string, max = 60): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
