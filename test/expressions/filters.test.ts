import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ExpressionEngine, ExpressionError } from '../../electron/engine/expressions';
import { card, token } from './token-fixtures';

const engine = new ExpressionEngine();
/** Renders `template` over a token holding `data`, as text (fingerprints, search indexes). */
const text = (template: string, data: unknown): string => engine.renderTokenText(template, token('t-1', data));
/** Same, keeping the JSON type of a lone expression (masks). */
const value = (template: string, data: unknown): unknown => engine.renderTokenTemplate(template, token('t-1', data));
const failure = (template: string, data: unknown): ExpressionError => {
  try {
    text(template, data);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    return error as ExpressionError;
  }
  throw new Error(`expected ${template} to fail`);
};

const store = {
  books: [
    { category: 'fiction', title: 'Moby Dick', price: 8.99 },
    { category: 'fantasy', title: 'The Lord of the Rings', price: 22.99 },
  ],
  bicycle: { color: 'red', price: 19.95 },
};

describe('json', () => {
  it('selects one value by JSONPath, including filter expressions', () => {
    expect(text("{{ data | json: '$.bicycle.color' }}", store)).toBe('red');
    expect(value("{{ data | json: '$.bicycle.price' }}", store)).toBe(19.95);
    expect(text("{{ data | json: '$.books[?(@.price < 10)].title' }}", store)).toBe('Moby Dick');
    expect(value("{{ data | json: '$.bicycle' }}", store)).toEqual({ color: 'red', price: 19.95 });
  });
  it('gives null when nothing matches', () => {
    expect(value("{{ data | json: '$.nothing' }}", store)).toBeNull();
    expect(text("[{{ data | json: '$.nothing' }}]", store)).toBe('[]');
  });
  it('rejects more than one match and paths that are not JSONPath', () => {
    expect(failure("{{ data | json: '$..title' }}", store).reason).toMatch(/more than one/);
    expect(failure("{{ data | json: 'bicycle.color' }}", store).reason).toMatch(/JSONPath/);
  });
  // A typo must fail, never select more: `$[` used to send the whole card.
  it.each(['$[', '$.', '$.bicycle[', '$$$', '$[abc', '$.bicycle..', '$.bicycle]', '$.books[?(@.price < )]'])(
    'refuses the malformed JSONPath %s, saying why',
    (path) => {
      expect(failure(`{{ data | json: '${path}' }}`, store).reason).toMatch(/^the JSONPath does not parse: \w/);
    },
  );
  it('offers no regular-expression functions, which would run over token data', () => {
    expect(failure(`{{ data | json: '$.books[?match(@.title, "M.*")].title' }}`, store).reason).toMatch(/does not parse/);
    expect(text(`{{ data | json: '$.books[?length(@.title) == 9].title' }}`, store)).toBe('Moby Dick');
  });
});

describe('last4', () => {
  it('keeps the last four characters, or the whole shorter value', () => {
    expect(text('{{ data | last4 }}', '3622720627165567')).toBe('5567');
    expect(text('{{ data | slice: 12, 2 | last4 }}', '3622720627165567')).toBe('55');
    expect(text('{{ data | last4 }}', '67')).toBe('67');
  });
  it('counts characters, not UTF-16 units', () => {
    expect(text('{{ data | last4 }}', 'ab😀cde')).toBe('😀cde');
  });
});

describe('reveal_last', () => {
  it('masks letters and digits before the revealed tail', () => {
    expect(text('{{ data | reveal_last: 6 }}', '36227206271667')).toBe('XXXXXXXX271667');
    expect(text("{{ data | reveal_last: 3, '#' }}", '36227206271667')).toBe('###########667');
  });
  it('keeps separators, as the default SSN and card masks show', () => {
    expect(text('{{ data | reveal_last: 4 }}', '123-45-6789')).toBe('XXX-XX-6789');
    expect(text("{{ data | reveal_last: 4, '#' }}", '4242-4242-4242-4242')).toBe('####-####-####-4242');
    expect(text('{{ data | reveal_last: 2 }}', 'Zoë 42')).toBe('XXX 42');
  });
  it('returns a value no longer than the tail unchanged', () => {
    expect(text('{{ data | reveal_last: 4 }}', '123')).toBe('123');
    expect(text('{{ data | reveal_last: 4 }}', 4242)).toBe('4242');
  });
  it('rejects a bad length or mask character', () => {
    expect(failure('{{ data | reveal_last: -1 }}', 'abcdef').reason).toMatch(/length/);
    expect(failure('{{ data | reveal_last }}', 'abcdef').reason).toMatch(/length/);
    expect(failure("{{ data | reveal_last: 2, 'ab' }}", 'abcdef').reason).toMatch(/mask_char/);
  });
});

describe('reveal', () => {
  const pan = '3622-7206-2716-5567';
  it('reveals the first and last characters and masks the rest', () => {
    expect(text('{{ data | reveal: 6 }}', pan)).toBe('3622-7XXXXXXXXXXXXX');
    expect(text('{{ data | reveal: 7, 5 }}', pan)).toBe('3622-72XXXXXXX-5567');
    expect(text("{{ data | reveal: 7, 5, '#' }}", pan)).toBe('3622-72#######-5567');
  });
  it('keeps preserve characters', () => {
    expect(text(`{{ data | reveal: 7, 4, '#', "-" }}`, pan)).toBe('3622-72##-####-5567');
  });
  it('masks everything when revealing would show the whole value', () => {
    expect(text('{{ data | reveal: 10, 9 }}', pan)).toBe('XXXXXXXXXXXXXXXXXXX');
    expect(text("{{ data | reveal: 1, 1, 'X', '-' }}", 'a--b')).toBe('XXXX');
  });
});

describe('card_bin', () => {
  it('is 6 digits below 16 digits and 8 from 16 digits', () => {
    expect(text('{{ data | card_bin }}', '378282246310005')).toBe('378282');
    expect(text('{{ data | card_bin }}', '4242424242424242')).toBe('42424242');
    expect(text('{{ data.number | card_bin }}', card.data)).toBe('42424242');
  });
  it('ignores a given separator', () => {
    expect(text("{{ data | card_bin: '-' }}", '4242-4242-4242-4242')).toBe('42424242');
    expect(text("{{ data | card_bin: ' ' }}", '3782 822463 10005')).toBe('378282');
  });
});

describe('card_exp', () => {
  const expiry = { expiration_month: 3, expiration_year: 2030 };
  it.each([
    ['MM', '03'],
    ['MMYY', '0330'],
    ['YYYY', '2030'],
    ['YYYY-MM', '2030-03'],
    ['MM/YY', '03/30'],
    ['MM/YYYY', '03/2030'],
    ['MM-YYYY', '03-2030'],
    ['MMYYYY', '032030'],
    ['YYYYMM', '203003'],
    ['MM_YYYY', '03_2030'],
  ])('formats %s', (format, expected) => {
    expect(text(`{{ data | card_exp: '${format}' }}`, expiry)).toBe(expected);
  });
  it('accepts month and year given as digit strings', () => {
    expect(text("{{ data | card_exp: 'MM/YY' }}", { expiration_month: '12', expiration_year: '2029' })).toBe('12/29');
  });
  it('rejects unknown formats and data without an expiry', () => {
    expect(failure("{{ data | card_exp: 'QQ' }}", expiry).reason).toMatch(/format/);
    expect(failure("{{ data | card_exp: 'MM/YY' }}", { number: '4242' }).reason).toMatch(/expiration_month/);
    expect(failure("{{ data | card_exp: 'MM/YY' }}", { expiration_month: 13, expiration_year: 2030 }).reason).toMatch(/expiration/);
  });
});

describe('pad_left and pad_right', () => {
  it.each([
    ["{{ data | pad_left: 6, '0' }}", '001234'],
    ["{{ data | pad_left: 6, 'X' }}", 'XX1234'],
    ["{{ data | pad_left: 2, '0' }}", '1234'],
    ["{{ data | pad_right: 6, '0' }}", '123400'],
    ["{{ data | pad_right: 4, '0' }}", '1234'],
  ])('%s', (template, expected) => {
    expect(text(template, '1234')).toBe(expected);
  });
  it('passes null through', () => {
    expect(value("{{ data | pad_left: 6, '0' }}", null)).toBeNull();
  });
  it('needs a single pad character and a bounded length', () => {
    expect(failure('{{ data | pad_left: 6 }}', '1234').reason).toMatch(/pad_char/);
    expect(failure("{{ data | pad_right: 999999999, '0' }}", '1234').reason).toMatch(/more than \d+ characters or items/);
  });
});

describe('type casts', () => {
  it('to_number parses numeric text and rejects the rest', () => {
    expect(value('{{ data | to_number }}', '42')).toBe(42);
    expect(value('{{ data | to_number }}', '3.14159')).toBe(3.14159);
    expect(value('{{ data | to_number }}', null)).toBeNull();
    expect(failure('{{ data | to_number }}', '12abc').reason).toMatch(/not a number/);
    expect(failure('{{ data | to_number }}', '  ').reason).toMatch(/not a number/);
  });
  it('to_boolean accepts true/false in any case', () => {
    expect(value('{{ data | to_boolean }}', 'true')).toBe(true);
    expect(value('{{ data | to_boolean }}', ' FALSE ')).toBe(false);
    expect(failure('{{ data | to_boolean }}', 'yes').reason).toMatch(/true or false/);
  });
  it('to_string casts scalars and rejects objects', () => {
    expect(value('{{ data | to_string }}', 3.14159)).toBe('3.14159');
    expect(value('{{ data | to_string }}', true)).toBe('true');
    expect(failure('{{ data | to_string }}', { a: 1 }).reason).toMatch(/text value/);
  });
});

describe('encodings and hmac', () => {
  it('encodes text as UTF-8 base64 and upper-case base16', () => {
    expect(text('{{ data | to_base64 }}', 'héllo')).toBe(Buffer.from('héllo').toString('base64'));
    expect(text('{{ data | to_base16 }}', 'hello')).toBe('68656C6C6F');
  });
  it("matches the hosted service's documented HMAC-SHA-256 example", () => {
    expect(text("{{ data | hmac: 'sha-256', 'secretKeyValue' | to_base16 }}", '4242424242424242')).toBe(
      '90A0050E90515101DCAD0F68955370CCA81F6DCB9D299E7E0585CC9746716D9B',
    );
  });
  it.each([
    ['sha-1', 'sha1'],
    ['sha-256', 'sha256'],
    ['SHA-512', 'sha512'],
  ])('%s digests like node:crypto', (algorithm, nodeName) => {
    const expected = createHmac(nodeName, 'k').update('payload').digest();
    expect(text(`{{ data | hmac: '${algorithm}', 'k' | to_base64 }}`, 'payload')).toBe(expected.toString('base64'));
    // Without an encoder the bytes come out as hex.
    expect(text(`{{ data | hmac: '${algorithm}', 'k' }}`, 'payload')).toBe(expected.toString('hex').toUpperCase());
  });
  it('rejects unknown algorithms, a missing key and null input', () => {
    expect(failure("{{ data | hmac: 'md5', 'k' }}", 'x').reason).toMatch(/algorithm/);
    expect(failure("{{ data | hmac: 'sha-256' }}", 'x').reason).toMatch(/key/);
    expect(failure('{{ data | to_base64 }}', null).reason).toMatch(/null/);
  });
});

describe('stringify and json_stringify', () => {
  it('stringify writes objects as JSON and leaves strings alone', () => {
    expect(text('{{ data.bicycle | stringify }}', store)).toBe('{"color":"red","price":19.95}');
    expect(text('{{ data.books[0].price | stringify }}', store)).toBe('8.99');
    expect(value('{{ data | stringify }}', 'plain "text"')).toBe('plain "text"');
    expect(value('{{ data | stringify }}', null)).toBeNull();
  });
  it('json_stringify writes a JSON literal, strings quoted', () => {
    expect(text('{{ data | json_stringify }}', 'abc')).toBe('"abc"');
    expect(text('{{ data | json_stringify }}', [1, 'x'])).toBe('[1,"x"]');
  });
  it('json_stringify must be the last filter', () => {
    expect(failure('{{ data | json_stringify | upcase }}', 'abc').reason).toBe('json_stringify must be the last filter');
  });
});

describe('standard Liquid filters', () => {
  it('chain as usual', () => {
    expect(text("{{ data.name | split: ' ' | last | upcase }}", { name: 'John Doe' })).toBe('DOE');
    expect(text("{{ data | remove: '-' }}", '111-22-3333')).toBe('111223333');
    expect(text("{{ data | slice: 0, 1 | append: '.' }}", 'Doe')).toBe('D.');
    expect(text("{{ data.missing | default: 'n/a' }}", {})).toBe('n/a');
  });
  it('rejects unknown filters when parsing', () => {
    expect(failure('{{ data | no_such_filter }}', 'x').reason).toBe('undefined filter: no_such_filter');
  });
});
