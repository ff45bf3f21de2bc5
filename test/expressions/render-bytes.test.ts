import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine, markersEnd } from '../../electron/engine/expressions';
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
    const fromBytes = Buffer.concat(engine.compileBodyBytes(chunks, kind).renderBytes(tokens, chunks));
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
          const fromBytes = Buffer.concat(engine.compileBodyBytes(chunks, kind).renderBytes(tokens, chunks));
          expect(fromBytes.equals(Buffer.from(engine.compileBody(body, kind).render(tokens)))).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 21 },
    );
  });

  describe('a large body read only up to its last expression', () => {
    const pad = (n: number) => 'x'.repeat(n);
    /** Renders `body` from its bytes, read as far as its markers reach, in chunks of 4 KB as a socket delivers them. */
    const renderLarge = (body: string, kind: 'json' | 'form' | 'text') => {
      const chunks = cut(Buffer.from(body), Array.from({ length: 40 }, (_, i) => (i + 1) * 4096));
      const pieces = engine.compileBodyBytes(chunks, kind, markersEnd(chunks, kind)).renderBytes(tokens, chunks);
      return { chunks, pieces, text: Buffer.concat(pieces).toString('utf8') };
    };

    it('sends the bytes after it as the very bytes that arrived, not copies of them', () => {
      const body = `{"pan":"{{ ${CARD_ID} | json: '$.number' }}","file":"${pad(100_000)}"}`;
      const { chunks, pieces, text } = renderLarge(body, 'json');
      expect(text).toBe(`{"pan":"4242424242424242","file":"${pad(100_000)}"}`);
      // The expression's part is rendered into one buffer; everything after it is views of the chunks received.
      expect(pieces[0].length).toBeLessThan(2 * 4096);
      expect(pieces.slice(1).every((piece) => chunks.some((chunk) => chunk.buffer === piece.buffer))).toBe(true);
    });

    it.each([
      // The string that holds the expression closes far past it: placed as part of a string, not as the whole string.
      ['a string running past the part read', 'json', `{"a":"{{ name-id }} ${pad(9000)}","b":"${pad(9000)}"}`],
      // A whole-string expression followed by much white space and a colon: an object key, which stays a string.
      ['a key whose colon lies past the part read', 'json', `{"{{ list-id }}"${' '.repeat(9000)}: 1, "b":"${pad(9000)}"}`],
      // An expression longer than the part read past its opening.
      ['an expression longer than the part read', 'text', `<a>{{ name-id | append: '${pad(3000)}' }}</a>${pad(9000)}`],
      ['a form body', 'form', `pan=%7B%7B ${CARD_ID} | json: '$.number' %7D%7D&file=${pad(20_000)}`],
      ['a bare JSON expression', 'json', `{"n":{{ name-id | size }},"file":"${pad(20_000)}"}`],
    ] as const)('renders %s exactly as the whole body read at once', (_name, kind, body) => {
      expect(renderLarge(body, kind).text).toBe(engine.compileBody(body, kind).render(tokens));
    });

    it('property: any body with long runs among its expressions renders as the whole body read at once', () => {
      // Runs longer than the part read past a marker, of characters that end strings, escape or separate JSON.
      const run = fc.tuple(fc.constantFrom('x', ' ', '"', '\\\\', ':', '}'), fc.constantFrom(1500, 5000)).map(([c, n]) => c.repeat(n));
      fc.assert(
        fc.property(fc.array(fc.oneof(text, expression, run), { maxLength: 6 }), fc.constantFrom('json', 'form', 'text' as const), (parts, kind) => {
          const body = `${kind === 'json' ? '{"a":"' : ''}${parts.join('')}${'x'.repeat(6000)}`;
          let expected: string;
          try {
            expected = engine.compileBody(body, kind).render(tokens);
          } catch (error) {
            expect(() => renderLarge(body, kind)).toThrow((error as Error).message);
            return;
          }
          expect(renderLarge(body, kind).text).toBe(expected);
        }),
        { numRuns: 300, seed: 22 },
      );
    });

    it('still names an expression that is not closed', () => {
      const body = `{"a":"{{ name-id | upcase","b":"${pad(20_000)}"}`;
      const chunks = [Buffer.from(body)];
      expect(() => engine.compileBodyBytes(chunks, 'json', markersEnd(chunks, 'json'))).toThrow(/not closed with \}\}/);
    });
  });
});
