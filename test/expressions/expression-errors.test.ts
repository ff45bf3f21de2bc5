import { describe, expect, it } from 'vitest';
import { type BodyKind, ExpressionEngine, ExpressionError } from '../../electron/engine/expressions';
import { ApiProblem } from '../../electron/engine/server/problem';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

const engine = new ExpressionEngine();
const SECRET = 'SECRET-4111111111111111';

function errorOf(body: string, kind: BodyKind = 'text'): ExpressionError {
  try {
    engine.compileBody(body, kind).render(tokenMap(card, token('secret-id', SECRET)));
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error(`expected ${body} to fail`);
}

describe('ExpressionError', () => {
  it.each([
    ['an unknown filter', `{{ ${CARD_ID} | no_such_filter }}`, 'undefined filter: no_such_filter'],
    ['bad filter syntax', `{{ ${CARD_ID} | slice 1 }}`, 'expected ":" after filter name'],
    ['a trailing pipe', `{{ ${CARD_ID} | json: '$.number' | }}`, 'expected filter name after the last "|"'],
    ['an unknown token id', '{{ no-such-token }}', 'token "no-such-token" was not found'],
    ['two JSONPath matches', `{{ ${CARD_ID} | json: '$.*' }}`, 'the JSONPath matches more than one value'],
    ['an invalid token id', '{{ a/b/c }}', '"a/b/c" is not a valid token id'],
    ['a missing token id', "{{ | json: '$.a' }}", 'no token id before the filters'],
  ])('names the expression for %s', (_case, body, reason) => {
    const error = errorOf(`x ${body} y`);
    expect(error.expression).toBe(body);
    expect(error.reason).toBe(reason);
    expect(error.detail).toContain(error.expression);
  });

  it('reports an unclosed expression', () => {
    const error = errorOf('{"a": "{{ secret-id"}', 'json');
    expect(error.reason).toMatch(/not closed/);
    expect(error.expression).toBe('{{ secret-id');
  });

  it.each([
    ['a raw control character', '{"a": "x {{ secret-id\t}} y"}'],
    ['a broken escape', '{"a": "x {{ secret-id \\u00zz }} y"}'],
  ])('refuses an expression in a JSON string with %s', (_case, body) => {
    expect(errorOf(body, 'json').reason).toBe('the expression is not validly encoded for this body');
  });

  it('names the expression as written, decoded from its JSON string', () => {
    const error = errorOf(`{"a": "{{ ${CARD_ID} | json: \\"$..x\\" | nope }}"}`, 'json');
    expect(error.expression).toBe(`{{ ${CARD_ID} | json: "$..x" | nope }}`);
  });

  it('is a 400 problem a route can pass through', () => {
    const error = errorOf('{{ no-such-token }}');
    expect(error).toBeInstanceOf(ApiProblem);
    expect(error.toBody()).toMatchObject({ status: 400, detail: 'Invalid expression {{ no-such-token }}: token "no-such-token" was not found' });
  });

  it.each([
    ['to_number', '{{ secret-id | to_number }}'],
    ['to_boolean', '{{ secret-id | to_boolean }}'],
    ['card_exp', "{{ secret-id | card_exp: 'MM' }}"],
    ['to_string', "{{ secret-id | split: '-' | to_string }}"],
    ['a JSONPath taken from the value', '{{ secret-id | json: token_value }}'],
    ['a card_exp format taken from the value', '{{ secret-id | card_exp: token_value }}'],
    ['a built-in filter failing', '{{ secret-id | date: 5 | to_number }}'],
  ])('never quotes the token value (%s)', (_case, body) => {
    const error = errorOf(body);
    expect(`${error.message} ${error.reason} ${error.expression}`).not.toContain(SECRET);
    expect(error.stack ?? '').not.toContain(SECRET);
  });

  it('never quotes a malformed JSONPath that came from token data', () => {
    const pathLike = `$[${SECRET}`;
    let error: unknown;
    try {
      engine.compileBody('{{ path-id | json: token_value }}', 'text').render(tokenMap(token('path-id', pathLike)));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    const { message, reason, stack } = error as ExpressionError;
    expect(reason).toBe('the JSONPath does not parse');
    expect(`${message} ${stack}`).not.toContain(SECRET);
  });
});
