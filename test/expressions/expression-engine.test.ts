import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine, ExpressionError, bodyKindOf, containsExpression, isValidTokenId } from '../../electron/engine/expressions';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

/**
 * Heap still reachable after bodies of `size` characters, each with an expression on its own token, are compiled once
 * each, over what was reachable before (both after a full collection).
 */
function heapKeptByBodies(size: number, count: number): number {
  setFlagsFromString('--expose-gc');
  const collectGarbage = runInNewContext('gc') as () => void;
  const engine = new ExpressionEngine();
  const filler = 'x'.repeat(size);
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) engine.compileBody(`{"doc":"${filler}${i}","pan":"{{ tok-${i} | json: '$.number' }}"}`, 'json');
  collectGarbage();
  return process.memoryUsage().heapUsed - before;
}

describe('compiled body cache', () => {
  const body = `{"n": "{{ ${CARD_ID} | json: '$.number' }}"}`;

  it('returns the same compiled object for the same kind and text', () => {
    const engine = new ExpressionEngine();
    const first = engine.compileBody(body, 'json');
    expect(engine.compileBody(body, 'json')).toBe(first);
    expect(engine.compileBody(body, 'text')).not.toBe(first);
    expect(engine.compileBody(`${body} `, 'json')).not.toBe(first);
  });
  it('keeps no large body alive through the expressions it cached', () => {
    // Large bodies are not cached, but each distinct expression is: 100 of them once held 50 MB of bodies.
    expect(heapKeptByBodies(500_000, 100)).toBeLessThan(10_000_000);
  });
  it('keeps no body sent once alive through its cached expressions once the body itself is forgotten', () => {
    // Small enough for the body cache, which keeps only the last 64 bodies sent once: 400 bodies, 6 MB held by slices.
    expect(heapKeptByBodies(15_000, 400)).toBeLessThan(3_000_000);
  });
  it('keeps a body sent again, and forgets one sent once after 64 other new bodies', () => {
    const engine = new ExpressionEngine({ cacheSize: 2 });
    const repeated = engine.compileBody(`a ${body}`, 'text');
    expect(engine.compileBody(`a ${body}`, 'text')).toBe(repeated);
    const once = engine.compileBody(`b ${body}`, 'text');
    for (let i = 0; i < 64; i++) engine.compileBody(`${i} ${body}`, 'text'); // 64 other new bodies
    expect(engine.compileBody(`a ${body}`, 'text')).toBe(repeated);
    expect(engine.compileBody(`b ${body}`, 'text')).not.toBe(once);
  });
  it('caches nothing with size 0', () => {
    const engine = new ExpressionEngine({ cacheSize: 0 });
    expect(engine.compileBody(body, 'json')).not.toBe(engine.compileBody(body, 'json'));
  });
  it('renders each token through a filter chain that other tokens used before', () => {
    // The chain `| json: '$.number'` is parsed once and shared; each expression keeps its own token and source.
    const engine = new ExpressionEngine();
    const other = token('tok-other', { number: '5555555555554444' });
    const tokens = new Map([...tokenMap(card), ...tokenMap(other)]);
    expect(engine.compileBody(`{"n": "{{ ${CARD_ID} | json: '$.number' }}"}`, 'json').render(tokens)).toBe('{"n": "4242424242424242"}');
    const second = engine.compileBody(`{"m": "{{ tok-other | json: '$.number' }}"}`, 'json');
    expect(second.tokenIds).toEqual(['tok-other']);
    expect(second.render(tokens)).toBe('{"m": "5555555555554444"}');
    expect(() => second.render(tokenMap(card))).toThrow(/\{\{ tok-other \| json: '\$\.number' \}\}.*"tok-other" was not found/);
  });
  it('renders a cached body with new tokens each time', () => {
    const engine = new ExpressionEngine();
    const other = token(CARD_ID, { number: '5555555555554444' });
    expect(engine.compileBody(body, 'json').render(tokenMap(card))).toBe('{"n": "4242424242424242"}');
    expect(engine.compileBody(body, 'json').render(tokenMap(other))).toBe('{"n": "5555555555554444"}');
  });
});

describe('POST /detokenize on parsed JSON', () => {
  const engine = new ExpressionEngine();
  const request = JSON.parse(`{
    "card": "{{ ${CARD_ID} }}",
    "nested": {"number": "{{ ${CARD_ID} | json: '$.number' }}", "label": "ends in {{ ${CARD_ID} | json: '$.number' | last4 }}"},
    "list": ["{{ token: ${CARD_ID} | json: '$.metadata.customer' }}", "{{ name-id }}", 7, null, true],
    "{{ name-id }}": "keys are not templates",
    "__proto__": "{{ name-id }}"
  }`);
  const tokens = tokenMap(card, token('name-id', 'Jane "J" Doe'));

  it('replaces every string expression and keeps the rest', () => {
    const out = engine.detokenizeJson(request, tokens) as Record<string, unknown>;
    expect(out.card).toEqual(card.data);
    expect(out.nested).toEqual({ number: '4242424242424242', label: 'ends in 4242' });
    expect(out.list).toEqual(['c-1', 'Jane "J" Doe', 7, null, true]);
    expect(out['{{ name-id }}']).toBe('keys are not templates');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('Jane "J" Doe');
  });
  it('collects the distinct ids and the expression count first', () => {
    expect(engine.collectJsonTokenIds(request)).toEqual({ tokenIds: [CARD_ID, 'name-id'], expressionCount: 6 });
    expect(engine.collectJsonTokenIds({ a: 1, b: ['plain'] })).toEqual({ tokenIds: [], expressionCount: 0 });
  });
  it('fails on an id missing from the lookup', () => {
    expect(() => engine.detokenizeJson({ a: '{{ name-id }}' }, tokenMap(card))).toThrow(ExpressionError);
  });
});

describe('token-scope templates', () => {
  const engine = new ExpressionEngine();
  const cardMask = {
    number: '{{ data.number | reveal_last: 4 }}',
    expiration_month: '{{ data.expiration_month }}',
    expiration_year: '{{ data.expiration_year }}',
  };

  it('evaluate a card mask, keeping the JSON type of lone expressions', () => {
    expect(engine.renderTokenTemplate(cardMask, card)).toEqual({ number: 'XXXXXXXXXXXX4242', expiration_month: 3, expiration_year: 2030 });
  });
  it('evaluate a mask over complex data; omitted fields stay hidden', () => {
    const person = token('person-1', { name: { first: 'John', last: 'Doe' }, ssn: '123-45-6789', cvc: '123' });
    const mask = { name: { first: '{{ data.name.first }}', last: '{{ data.name.last | slice: 0, 1 }}.' }, ssn: "{{ data.ssn | reveal_last: 4, '#' }}", tags: ['fixed', 1] };
    expect(engine.renderTokenTemplate(mask, person)).toEqual({ name: { first: 'John', last: 'D.' }, ssn: '###-##-6789', tags: ['fixed', 1] });
  });
  it('evaluate a primitive mask and a missing field as null', () => {
    expect(engine.renderTokenTemplate('{{ data | reveal_last: 4 }}', token('ssn-1', '123456789'))).toBe('XXXXX6789');
    expect(engine.renderTokenTemplate('{{ data.nothing }}', card)).toBeNull();
  });
  it('render fingerprint expressions and search indexes as text, with metadata in scope', () => {
    const bank = token('bank-1', { routing_number: '021000021', account_number: '1234567890' }, { metadata: { region: 'us' } });
    expect(engine.renderTokenText('{{ data.routing_number }}|{{ data.account_number }}', bank)).toBe('021000021|1234567890');
    expect(engine.renderTokenText('{{ data | stringify }}', bank)).toBe(JSON.stringify(bank.data));
    expect(engine.renderTokenText('{{ metadata.region | upcase }}-{{ data.account_number | last4 }}', bank)).toBe('US-7890');
    expect(engine.renderTokenText('{{ data.routing_number }}', bank)).toBe('021000021');
  });
  it('see own properties only', () => {
    expect(engine.renderTokenText('[{{ data.constructor }}{{ data.__proto__ }}]', card)).toBe('[]');
  });
  it('are validated at create time without evaluating them', () => {
    expect(() => engine.validateTokenTemplate(cardMask)).not.toThrow();
    expect(() => engine.validateTokenTemplate(['{{ data.not_there | upcase }}', 'literal'])).not.toThrow();
    expect(() => engine.validateTokenTemplate({ a: { b: '{{ data | unknown_filter }}' } })).toThrow(ExpressionError);
    expect(() => engine.validateTokenTemplate('{{ data.number garbage }}')).toThrow(/expected one value before the filters/);
    expect(() => engine.validateTokenTemplate('{{ data.number ')).toThrow(/not closed/);
  });
});

describe('bodyKindOf', () => {
  it.each([
    ['application/json', 'json'],
    ['Application/JSON; charset=utf-8', 'json'],
    ['application/vnd.api+json', 'json'],
    ['application/x-www-form-urlencoded;charset=UTF-8', 'form'],
    ['application/xml', 'text'],
    ['text/plain', 'text'],
    ['multipart/form-data; boundary=x', 'text'],
    [undefined, 'text'],
  ])('%s → %s', (contentType, kind) => {
    expect(bodyKindOf(contentType)).toBe(kind);
  });
});

describe('containsExpression', () => {
  it('spots raw and percent-encoded expressions', () => {
    expect(containsExpression(`Bearer {{ ${CARD_ID} }}`)).toBe(true);
    expect(containsExpression('/v1/cards/%7B%7B%20abc%20%7D%7D?x=1')).toBe(true);
    expect(containsExpression('/v1/cards/{id}?q={}')).toBe(false);
  });
});

describe('isValidTokenId', () => {
  it('follows the token id rule of docs/api.md', () => {
    expect(isValidTokenId(CARD_ID)).toBe(true);
    expect(isValidTokenId('my-custom_id')).toBe(true);
    expect(isValidTokenId('ab')).toBe(false);
    expect(isValidTokenId('x'.repeat(401))).toBe(false);
    for (const c of '#/\\+?[]|&=%<>{}^') expect(isValidTokenId(`abc${c}def`)).toBe(false);
  });
});
