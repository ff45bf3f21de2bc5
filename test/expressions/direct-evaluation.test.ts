import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionBudget, ExpressionError } from '../../electron/engine/expressions';
import { type CompiledExpression, LiquidRuntime } from '../../electron/engine/expressions/liquid-runtime';

const runtime = new LiquidRuntime();

/** The expression's result, or the error it fails with, through `expression` as compiled. */
function outcome(expression: CompiledExpression, variables: Record<string, unknown>): unknown {
  try {
    return { value: runtime.evaluate(expression, runtime.scope(variables, new ExpressionBudget())) };
  } catch (error) {
    return { error: error instanceof ExpressionError ? error.message : String(error) };
  }
}

const compile = (text: string) => runtime.compile(`{{ ${text} }}`, text);
/** The same expression without its direct form: Liquid's interpreter, the reference. */
const interpreted = (expression: CompiledExpression): CompiledExpression => ({ ...expression, direct: undefined });

const name = fc.constantFrom('data', 'number', 'a', 'length', 'constructor', '__proto__', 'toString', 'x_1', '0');
const document = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(name, fc.oneof(fc.jsonValue(), fc.string({ unit: 'grapheme' }), fc.dictionary(name, fc.jsonValue()))),
);

// Every form the direct path takes: paths (dotted and quoted), our filters with literal arguments, chains.
const DIRECT_FORMS = [
  'data',
  'data.number',
  'data.a.length',
  'data["number"]',
  'data.constructor',
  'data.0',
  'data | reveal_last: 4',
  "data.number | reveal_last: 2, '*'",
  "data | reveal: 1, 2, '#'",
  'data | last4',
  "data | pad_left: 8, '0'",
  "data.number | json: '$.a'",
  "data | json: '$.number.a'",
  "data | json: '$..a'",
  "data | json: 'a'",
  "data | hmac: 'sha-256', 'k' | to_base64",
  'data | stringify',
  'data.number | to_string | json_stringify',
  'data | to_number',
  "data.a | card_exp: 'MM/YY'",
] as const;

describe('direct evaluation (no Liquid interpreter) of paths and our filters with literal arguments', () => {
  it('is used for the forms masks and proxy bodies take, and not for others', () => {
    for (const form of DIRECT_FORMS) expect(compile(form).direct, form).toBeDefined();
    for (const form of ['data.size', 'data.first', 'data[0]', 'data | upcase', 'data | reveal_last: n', 'data.a | default: 1', "'x'"]) {
      expect(compile(form).direct, form).toBeUndefined();
    }
  });

  it('gives what Liquid gives, value or error, for any JSON data', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DIRECT_FORMS), document, (form, data) => {
        const expression = compile(form);
        const variables = { data };
        expect(outcome(expression, variables)).toEqual(outcome(interpreted(expression), variables));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('still meters the memory that filters allocate', () => {
    const expression = compile("data | pad_left: 20000000, '0'");
    expect(expression.direct).toBeDefined();
    expect(outcome(expression, { data: '1' })).toEqual({ error: expect.stringContaining("over the request's expression budget") });
  });
});
