import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { CARD_ID, card, token, tokenMap } from './token-fixtures';

const engine = new ExpressionEngine();

describe('form-urlencoded bodies', () => {
  it('form-encode results (space as +) and leave the other fields as sent', () => {
    const body = `number={{ ${CARD_ID} | json: '$.number' }}&name={{ name-id }}&note=as%20sent+here`;
    const out = engine.compileBody(body, 'form').render(tokenMap(card, token('name-id', 'Zoë & Co = 100% "ok"+')));
    expect(out).toBe('number=4242424242424242&name=Zo%C3%AB+%26+Co+%3D+100%25+%22ok%22%2B&note=as%20sent+here');
    expect(new URLSearchParams(out).get('name')).toBe('Zoë & Co = 100% "ok"+');
  });
  it('find expressions that the client percent-encoded', () => {
    // What URLSearchParams / HTML forms send for `card={{ <id> | json: '$.number' }}`.
    const body = new URLSearchParams({ card: `{{ ${CARD_ID} | json: '$.number' }}`, plain: 'a b' }).toString();
    const compiled = engine.compileBody(body, 'form');
    expect(compiled.tokenIds).toEqual([CARD_ID]);
    expect(compiled.render(tokenMap(card))).toBe('card=4242424242424242&plain=a+b');
  });
  it('property: any token text survives a form round trip', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (secret) => {
        const out = engine.compileBody('a={{ secret-id }}&b=2', 'form').render(tokenMap(token('secret-id', secret)));
        const parsed = new URLSearchParams(out);
        expect(parsed.get('a')).toBe(secret);
        expect(parsed.get('b')).toBe('2');
      }),
    );
  });
});

describe('text and XML bodies', () => {
  it('insert results as they are', () => {
    const body = `<card>\n  <number>{{ ${CARD_ID} | json: '$.number' }}</number>\n  <exp>{{ ${CARD_ID} | card_exp: "MM/YYYY" }}</exp>\n  <owner>{{ owner-id }}</owner>\n</card>`;
    const out = engine.compileBody(body, 'text').render(tokenMap(card, token('owner-id', 'A & B <x>')));
    expect(out).toBe('<card>\n  <number>4242424242424242</number>\n  <exp>03/2030</exp>\n  <owner>A & B <x></owner>\n</card>');
  });
  it('write object results as JSON text', () => {
    expect(engine.compileBody(`card: {{ ${CARD_ID} }}`, 'text').render(tokenMap(card))).toBe(`card: ${JSON.stringify(card.data)}`);
  });
  it('never evaluate {% tags %}', () => {
    const body = '{% assign x = 1 %}{% if x %}{{ owner-id }}{% endif %}{%raw%}';
    const compiled = engine.compileBody(body, 'text');
    expect(compiled.expressionCount).toBe(1);
    expect(compiled.render(tokenMap(token('owner-id', 'V')))).toBe('{% assign x = 1 %}{% if x %}V{% endif %}{%raw%}');
  });
  it('allow }} inside quoted filter arguments and quotes inside token ids', () => {
    const compiled = engine.compileBody("[{{ o'brien-1 | append: '}}' }}]", 'text');
    expect(compiled.tokenIds).toEqual(["o'brien-1"]);
    expect(compiled.render(tokenMap(token("o'brien-1", 'v')))).toBe('[v}}]');
  });
});

describe('expression bookkeeping', () => {
  it('counts every expression and lists each token id once', () => {
    const compiled = engine.compileBody(
      `{"a":"{{ ${CARD_ID} | json: '$.number' }}","b":"{{ ${CARD_ID} | card_exp: 'MM' }}","c":{{ other-id }},"d":"{{ token: other-id }}"}`,
      'json',
    );
    expect(compiled.expressionCount).toBe(4);
    expect(compiled.tokenIds).toEqual([CARD_ID, 'other-id']);
  });
});
