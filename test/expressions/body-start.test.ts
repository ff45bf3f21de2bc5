import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

/** compileBodyStart: the part of a large body that history keeps, rendered as far as its expressions can be placed. */
const engine = new ExpressionEngine();
const tokens = tokenMap(card, token('name-id', 'Zoë "the" \\ 東京'), token('list-id', ['a', { b: 2 }]));
const PAN = `{{ ${CARD_ID} | json: '$.number' }}`;
const render = (part: string, kind: 'json' | 'form' | 'text') => engine.compileBodyStart(part, kind).render(tokens);

describe('the first part of a body', () => {
  it('renders up to an expression the cut leaves unclosed, and not a character of it (the quote of its string stays)', () => {
    const body = `{"pan":"${PAN}","name":"{{ name-id }}","rest":"xxxx"}`;
    const cut = body.indexOf('name-id') + 3;
    expect(render(body.slice(0, cut), 'json')).toBe('{"pan":"4242424242424242","name":"');
  });

  it('stops before a string the cut leaves open when an expression sits in it, even a closed one', () => {
    const body = `{"pan":"${PAN}","note":"a {{ name-id }} b and more","x":1}`;
    const cut = body.indexOf(' b and more') + 3;
    expect(render(body.slice(0, cut), 'json')).toBe('{"pan":"4242424242424242","note":"a ');
  });

  it('renders a part without any expression as it is', () => {
    expect(render('{"lines":[1,2,3', 'json')).toBe('{"lines":[1,2,3');
  });

  it.each([
    ['form', `pan=${PAN.replace('{{', '%7B%7B').replace('}}', '%7D%7D')}&who={{ name-id }}&x=1`, 'pan=4242424242424242&who='],
    ['text', `<pan>${PAN}</pan><who>{{ name-id | upcase }}</who>`, '<pan>4242424242424242</pan><who>'],
  ] as const)('cuts a %s body the same way', (kind, body, expected) => {
    expect(render(body.slice(0, body.lastIndexOf('}}') - 2), kind)).toBe(expected);
  });

  it('property: any cut of a body renders a beginning of what the whole body renders', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '=', '&', ':', ',', 'é', '東', '\n') });
    const expression = fc.constantFrom(PAN, '{{ name-id }}', '{{ list-id }}', "{{ name-id | append: 'ß' }}");
    fc.assert(
      fc.property(
        fc.array(fc.oneof(text, expression), { maxLength: 8 }),
        fc.constantFrom('json', 'form', 'text' as const),
        fc.nat(),
        (parts, kind, at) => {
          const body = kind === 'json' ? `{"a":"${parts.join('').replace(/\n/g, '\\n')}","b":1}` : parts.join('');
          const whole = engine.compileBody(body, kind).render(tokens);
          const part = render(body.slice(0, at % (body.length + 1)), kind);
          expect(part).not.toContain('{{');
          // A string that is one expression is replaced quotes and all: a cut inside it keeps its opening quote.
          expect(whole.startsWith(part) || whole.startsWith(part.slice(0, -1))).toBe(true);
        },
      ),
      { numRuns: 2000, seed: 31 },
    );
  });
});
