import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

const engine = new ExpressionEngine();
const tokens = tokenMap(card, token('name-id', 'Zoë "the" \\ 東京 🎉'), token('list-id', ['a', { b: 2 }]));

// ASCII text around the expressions (the proxy renders only ASCII bodies into bytes), braces kept out of it.
const ascii = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }).map((s) => s.replace(/[{}]/g, ''));
const expression = fc.constantFrom(`{{ ${CARD_ID} | json: '$.number' }}`, '{{ name-id }}', '{{ list-id }}', '{{ name-id | upcase }}', `{{ token: ${CARD_ID} | json: '$.card.last4' }}`);

describe('rendering straight into bytes', () => {
  it.each([
    ['json', `{"pan":"{{ ${CARD_ID} | json: '$.number' }}","who":"x {{ name-id }} y","list":"{{ list-id }}","n":{{ name-id | size }}}`],
    ['form', `pan={{ ${CARD_ID} | json: '$.number' }}&who={{ name-id }}&plain=a+b`],
    ['text', `<pan>{{ ${CARD_ID} | json: '$.number' }}</pan><who>{{ name-id }}</who>`],
  ] as const)('gives the bytes of the rendered %s text', (kind, body) => {
    const compiled = engine.compileBody(body, kind);
    expect(compiled.renderBytes(tokens, Buffer.from(body)).toString('utf8')).toBe(compiled.render(tokens));
  });

  it('property: gives the bytes of the rendered text for any ASCII body, whatever the values hold', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(ascii, expression), { maxLength: 8 }), fc.constantFrom('json', 'form', 'text' as const), (parts, kind) => {
        const body = kind === 'json' ? `{"a":"${parts.join('').replace(/["\\]/g, '')}","b":1}` : parts.join('');
        const compiled = engine.compileBody(body, kind);
        expect(compiled.renderBytes(tokens, Buffer.from(body)).equals(Buffer.from(compiled.render(tokens)))).toBe(true);
      }),
      { numRuns: 2000, seed: 21 },
    );
  });
});
