import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { splitAt } from '../support/pieces';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

const engine = new ExpressionEngine();
const tokens = tokenMap(card, token('name-id', 'Zoë "the" \\ 東京 🎉'), token('list-id', ['a', { b: 2 }]));

// Text around the expressions with 1- to 4-byte characters, JSON's special characters and braces kept out of it.
const text = fc.string({ unit: fc.constantFrom('a', ' ', '=', '&', '%', ':', ',', '<', 'é', '€', '東', '🎉', '\n') });
const expression = fc.constantFrom(
  `{{ ${CARD_ID} | json: '$.number' }}`,
  '{{ name-id }}',
  '{{ list-id }}',
  '{{ name-id | upcase }}',
  "{{ name-id | append: 'ß€' }}",
  `{{ token: ${CARD_ID} | json: '$.card.last4' }}`,
);

/** `bytes` cut at the given points (any numbers, brought into range), as a socket may deliver them. */
const cut = (bytes: Buffer, at: number[]): Buffer[] => {
  const chunks = splitAt(bytes, at.map((p) => p % (bytes.length + 1)));
  return chunks.length ? chunks : [bytes];
};

describe('compiling from bytes and rendering straight into bytes', () => {
  it.each([
    ['json', `{"pan":"{{ ${CARD_ID} | json: '$.number' }}","who":"x {{ name-id }} y","list":"{{ list-id }}","n":{{ name-id | size }}}`],
    ['form', `pan={{ ${CARD_ID} | json: '$.number' }}&who={{ name-id }}&plain=a+b&city=%E6%9D%B1`],
    ['text', `<pan>{{ ${CARD_ID} | json: '$.number' }}</pan><who>Zoë {{ name-id }}</who>`],
  ] as const)('gives the bytes of the rendered %s text', (kind, body) => {
    const chunks = cut(Buffer.from(body), [7, 40, 41]);
    const fromBytes = engine.compileBodyBytes(chunks, kind).renderBytes(tokens, chunks);
    expect(fromBytes.toString('utf8')).toBe(engine.compileBody(body, kind).render(tokens));
  });

  it('property: any UTF-8 body in any chunks gives the bytes of the text rendered as a string', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, expression), { maxLength: 8 }),
        fc.constantFrom('json', 'form', 'text' as const),
        fc.array(fc.nat(), { maxLength: 4 }),
        (parts, kind, points) => {
          const body = kind === 'json' ? `{"a":"${parts.join('').replace(/\n/g, '\\n')}","b":1}` : parts.join('');
          const chunks = cut(Buffer.from(body), points);
          const fromBytes = engine.compileBodyBytes(chunks, kind).renderBytes(tokens, chunks);
          expect(fromBytes.equals(Buffer.from(engine.compileBody(body, kind).render(tokens)))).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 21 },
    );
  });
});
