import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

const engine = new ExpressionEngine();
const renderJson = (body: string, ...tokens: ReturnType<typeof token>[]): string => engine.compileBody(body, 'json').render(tokenMap(...tokens));

describe('JSON bodies: strings that are exactly one expression', () => {
  it('become the JSON value when the result is an object or array', () => {
    const list = token('list-token', ['a', { b: 2 }]);
    const out = renderJson(`{"card": "{{ ${CARD_ID} }}", "list": "{{list-token}}"}`, card, list);
    expect(JSON.parse(out)).toEqual({ card: card.data, list: ['a', { b: 2 }] });
  });
  it('stay strings when they are object keys, whatever the result', () => {
    const list = token('list-token', ['a', { b: 2 }]);
    const out = renderJson(`{"{{ list-token }}" : 1, "{{ ${CARD_ID} | json: '$.number' }}":2, "v": "{{ list-token }}"}`, card, list);
    expect(JSON.parse(out)).toEqual({ '["a",{"b":2}]': 1, '4242424242424242': 2, v: ['a', { b: 2 }] });
  });
  it('stay strings for scalar results, numbers included', () => {
    const out = renderJson(
      `{"number": "{{ ${CARD_ID} | json: '$.number' }}", "month": "{{ ${CARD_ID} | json: '$.expiration_month' }}", "none": "{{ ${CARD_ID} | json: '$.nothing' }}"}`,
      card,
    );
    expect(JSON.parse(out)).toEqual({ number: '4242424242424242', month: '3', none: '' });
  });
  it('read escaped quotes inside the expression as Liquid quotes', () => {
    const out = renderJson(`{"n": "{{ ${CARD_ID} | json: \\"$.number\\" }}"}`, card);
    expect(JSON.parse(out)).toEqual({ n: '4242424242424242' });
  });
  it('give the whole token object with token:', () => {
    const out = renderJson(`{"t": "{{ token: ${CARD_ID} }}", "c": "{{ token: ${CARD_ID} | json: '$.metadata.customer' }}"}`, card);
    expect(JSON.parse(out)).toEqual({ t: card, c: 'c-1' });
  });
});

describe('JSON bodies: where expressions are found', () => {
  const values = { 'tok-a': 'A"1\\', 'tok-b': 'b\n2', 'tok-c': '東京' };
  const tokens = tokenMap(...Object.entries(values).map(([id, value]) => token(id, value)));
  const ids = Object.keys(values) as (keyof typeof values)[];
  // Literal text that cannot open or close an expression, with what JSON.stringify escapes: quotes, backslashes,
  // control characters, lone surrogates (and plain strings, which are read without the JSON escape codec).
  const literal = fc.string({ unit: 'binary' }).map((text) => text.replace(/[{}]/g, ''));
  const piece = fc.oneof(literal, fc.constantFrom(...ids).map((id) => ({ id })));
  const leaf = fc.array(piece, { maxLength: 4 });
  type Leaf = (string | { id: keyof typeof values })[];

  it('property: string leaves with expressions among any other text read back with the values in place', () => {
    fc.assert(
      // Keys without braces too: a `{{` in a key opens an expression like anywhere else in the body.
      fc.property(fc.dictionary(literal, leaf, { maxKeys: 4 }), (object) => {
        // Built by hand so each expression stays raw in the body (JSON.stringify would leave it alone anyway, as it
        // holds nothing to escape) while the literal text around it is JSON-escaped.
        const string = (parts: Leaf) => `"${parts.map((p) => (typeof p === 'string' ? JSON.stringify(p).slice(1, -1) : `{{ ${p.id} }}`)).join('')}"`;
        const body = `{${Object.entries(object).map(([key, parts]) => `${JSON.stringify(key)}:${string(parts)}`).join(',')}}`;
        const expected = Object.fromEntries(
          Object.entries(object).map(([key, parts]) => [key, parts.map((p) => (typeof p === 'string' ? p : values[p.id])).join('')]),
        );
        expect(JSON.parse(engine.compileBody(body, 'json').render(tokens))).toEqual(expected);
      }),
    );
  });
});

describe('JSON bodies: results inside longer strings are escaped', () => {
  it.each([
    ['double quotes', 'he said "hi"'],
    ['backslashes', 'C:\\temp\\new'],
    ['newlines and tabs', 'line1\nline2\r\n\tend'],
    ['control characters', '\u0000\u0001\u001f'],
    ['unicode', 'Zoë Ñandú 東京'],
    ['emoji', '💳 👩‍👩‍👧'],
    ['line separators', '\u2028\u2029'],
    ['expression-like text', '{{ not-an-expression }}'],
  ])('%s', (_name, secret) => {
    const out = renderJson('{"a": "{{ secret-id }}", "b": "x {{ secret-id }} y"}', token('secret-id', secret));
    expect(JSON.parse(out)).toEqual({ a: secret, b: `x ${secret} y` });
  });

  it('property: any string as token data comes back exactly', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (secret) => {
        const out = renderJson('{"a":"{{ secret-id }}"}', token('secret-id', secret));
        expect(JSON.parse(out).a).toBe(secret);
      }),
    );
  });

  it('property: any JSON data becomes the same JSON value or its text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (data) => {
        const out = JSON.parse(renderJson('{"a":"{{ data-id }}"}', token('data-id', data))).a;
        const expected = typeof data === 'object' && data !== null ? JSON.parse(JSON.stringify(data)) : data === null ? '' : String(data);
        expect(out).toEqual(expected);
      }),
    );
  });
});

describe('JSON bodies: expressions outside strings', () => {
  it('insert numbers and booleans as JSON literals', () => {
    const flags = token('flags-id', { amount: '12.50', on: 'true' });
    const out = renderJson(
      `{"amount": {{ flags-id | json: '$.amount' | to_number }}, "on": {{ flags-id | json: '$.on' | to_boolean }}, "m": {{ ${CARD_ID} | json: '$.expiration_month' }}}`,
      flags,
      card,
    );
    expect(JSON.parse(out)).toEqual({ amount: 12.5, on: true, m: 3 });
  });
  it('quote strings so the body stays valid, and insert objects as JSON', () => {
    const out = renderJson(`{"s": {{ secret-id }}, "card": {{ ${CARD_ID} }}}`, token('secret-id', 'a "quoted" value'), card);
    expect(JSON.parse(out)).toEqual({ s: 'a "quoted" value', card: card.data });
  });
  it('insert json_stringify output verbatim', () => {
    const out = renderJson('[{{ secret-id | json_stringify }}, "{{ secret-id | json_stringify }}"]', token('secret-id', 'v'));
    expect(JSON.parse(out)).toEqual(['v', '"v"']);
  });
});

describe('JSON bodies: everything outside expressions is forwarded byte-for-byte', () => {
  it('keeps spacing, escapes, number spellings, key order and {% tags %}', () => {
    const before = '{ "z" :1.0e+2,\n\t"esc":"caf\\u00e9 \\/ ';
    const after = ' \\"end\\"",   "k":[ true ,null ], "tag": "{% if x %}y{% endif %}" }';
    const out = renderJson(`${before}{{ secret-id }}${after}`, token('secret-id', 'S'));
    expect(out).toBe(`${before}S${after}`);
    expect(JSON.parse(out).esc).toBe('café / S "end"');
  });
  it('adds no quote to a body cut off inside a string that is one expression', () => {
    // Not JSON, but what the client sent: only the expression changes, into string content.
    expect(renderJson(`{"a": "{{ ${CARD_ID} | json: '$.number' }}`, card)).toBe('{"a": "4242424242424242');
  });
  it('returns a body without expressions unchanged', () => {
    const body = '{"a": "{% raw %}", "b": "{ {"}';
    const compiled = engine.compileBody(body, 'json');
    expect(compiled.expressionCount).toBe(0);
    expect(compiled.render(new Map())).toBe(body);
  });
});
