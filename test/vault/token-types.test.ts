import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardDetails } from '../../electron/engine/vault/card-details';
import { abaValid, luhnValid } from '../../shared/checksums';
import { normalizeContainer, validateContainer } from '../../electron/engine/access/containers';
import { validateTokenId } from '../../electron/engine/vault/token-id';
import {
  TOKEN_TYPES,
  defaultContainer,
  defaultFingerprintExpression,
  defaultMask,
  defaultSearchIndexes,
  isTokenType,
  validateTokenData,
} from '../../electron/engine/vault/token-types';

const TEST_CARDS = {
  visa: '4242424242424242',
  mastercard: '5555555555554444',
  amex: '378282246310005',
  discover: '6011111111111117',
  jcb: '3566002020360505',
  mastercard2: '2223003122003222',
};

describe('checksums', () => {
  it.each<[string, boolean]>([
    ...Object.values(TEST_CARDS).map((n): [string, boolean] => [n, true]),
    ['36227206271667', true],
    ['4242424242424241', false], // last digit off by one
    ['4242424242424224', false], // two digits swapped
    ['0', true],
    ['', false],
    ['4242 4242 4242 4242', false],
    ['42424242424242a2', false],
  ])('luhnValid(%j) is %s', (digits, valid) => {
    expect(luhnValid(digits)).toBe(valid);
  });

  it.each<[string, boolean]>([
    ['011000015', true],
    ['021000021', true],
    ['011000016', false],
    ['01100001', false],
    ['0110000150', false],
    ['01100001x', false],
  ])('abaValid(%j) is %s', (routing, valid) => {
    expect(abaValid(routing)).toBe(valid);
  });

  it('any change of one digit breaks the Luhn check', () => {
    const luhnNumber = fc.stringMatching(/^\d{12,18}$/).map((body) => {
      const check = [...'0123456789'].find((d) => luhnValid(body + d));
      return body + check;
    });
    fc.assert(
      fc.property(luhnNumber, fc.nat(), fc.integer({ min: 1, max: 9 }), (number, at, delta) => {
        const i = at % number.length;
        const changed = number.slice(0, i) + ((Number(number[i]) + delta) % 10) + number.slice(i + 1);
        expect(luhnValid(number)).toBe(true);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });
});

describe('validateTokenData', () => {
  const card = (extra: Record<string, unknown> = {}) => ({ number: TEST_CARDS.visa, expiration_month: 12, expiration_year: 2030, cvc: '123', ...extra });

  it.each<[string, unknown]>([
    ['token', 'any string'],
    ['token', { nested: [1, 2, { deep: true }] }],
    ['token', 42],
    ...Object.values(TEST_CARDS).map((number): [string, unknown] => ['card', { number }]),
    ['card', card()],
    ['card', card({ cvc: '1234', expiration_month: 1 })],
    ['card', card({ cvc: null, expiration_month: null, expiration_year: null })],
    ...Object.values(TEST_CARDS).map((number): [string, unknown] => ['card_number', number]),
    ['card_number', '4000056655665556'],
    ['card_number', '4222222222222'], // 13 digits
    ['bank', { routing_number: '011000015', account_number: '1234567890' }],
    ['bank', { routing_number: '021000021', account_number: '12345678901234567' }],
    ['us_bank_account_number', '123'],
    ['us_bank_account_number', '12345678901234567'],
    ['us_bank_routing_number', '011000015'],
    ['social_security_number', '123-45-6789'],
    ['social_security_number', '123456789'],
    ['employer_id_number', '12-3456789'],
    ['employer_id_number', '123456789'],
  ])('%s accepts %j', (type, data) => {
    expect(validateTokenData(type, data)).toEqual({});
  });

  it.each<[string, unknown, Record<string, string[]>]>([
    ['card', card({ number: '4242424242424241' }), { 'data.number': ['Card number fails the Luhn check'] }],
    ['card', card({ number: '4242 4242 4242 4242' }), { 'data.number': ['Card number must be a string of 13 to 19 digits without separators'] }],
    ['card', card({ number: '4242-4242-4242-4242' }), { 'data.number': ['Card number must be a string of 13 to 19 digits without separators'] }],
    ['card', card({ number: 4242424242424242 }), { 'data.number': ['Card number must be a string of 13 to 19 digits without separators'] }],
    ['card', card({ number: '424242424242' }), { 'data.number': ['Card number must be a string of 13 to 19 digits without separators'] }],
    ['card', card({ number: undefined }), { 'data.number': ['Card number is required'] }],
    ['card', card({ expiration_month: 13 }), { 'data.expiration_month': ['Expiration month must be an integer from 1 to 12'] }],
    ['card', card({ expiration_month: 0 }), { 'data.expiration_month': ['Expiration month must be an integer from 1 to 12'] }],
    ['card', card({ expiration_month: '12' }), { 'data.expiration_month': ['Expiration month must be an integer from 1 to 12'] }],
    ['card', card({ expiration_month: 1.5 }), { 'data.expiration_month': ['Expiration month must be an integer from 1 to 12'] }],
    ['card', card({ expiration_year: 30 }), { 'data.expiration_year': ['Expiration year must be a 4-digit integer'] }],
    ['card', card({ cvc: '12' }), { 'data.cvc': ['CVC must be a string of 3 or 4 digits'] }],
    ['card', card({ cvc: 123 }), { 'data.cvc': ['CVC must be a string of 3 or 4 digits'] }],
    ['card', card({ cvc: '12345' }), { 'data.cvc': ['CVC must be a string of 3 or 4 digits'] }],
    ['card', card({ name: 'J Doe', zip: '12345' }), { 'data.name': ['Not a field of card data'], 'data.zip': ['Not a field of card data'] }],
    ['card', TEST_CARDS.visa, { data: ['Card data must be an object with a number'] }],
    ['card', [TEST_CARDS.visa], { data: ['Card data must be an object with a number'] }],
    [
      'card',
      { number: '1234', expiration_month: 99 },
      {
        'data.number': ['Card number must be a string of 13 to 19 digits without separators'],
        'data.expiration_month': ['Expiration month must be an integer from 1 to 12'],
      },
    ],
    ['card_number', '4242424242424241', { data: ['Card number fails the Luhn check'] }],
    ['card_number', '42424242424242424242', { data: ['Card number must be a string of 13 to 19 digits without separators'] }],
    ['bank', { routing_number: '011000016', account_number: '123' }, { 'data.routing_number': ['Routing number fails the ABA checksum'] }],
    ['bank', { routing_number: '01100001', account_number: '123' }, { 'data.routing_number': ['Routing number must be a string of 9 digits'] }],
    ['bank', { routing_number: '011000015', account_number: '123456789012345678' }, { 'data.account_number': ['Account number must be a string of up to 17 digits'] }],
    ['bank', { routing_number: '011000015' }, { 'data.account_number': ['Account number is required'] }],
    ['bank', { routing_number: '011000015', account_number: '1', iban: 'x' }, { 'data.iban': ['Not a field of bank data'] }],
    ['us_bank_account_number', '12', { data: ['Account number must be a string of 3 to 17 digits'] }],
    ['us_bank_account_number', '12345678901234567890', { data: ['Account number must be a string of 3 to 17 digits'] }],
    ['us_bank_account_number', '12-345', { data: ['Account number must be a string of 3 to 17 digits'] }],
    ['us_bank_routing_number', '011000016', { data: ['Routing number fails the ABA checksum'] }],
    ['us_bank_routing_number', 11000015, { data: ['Routing number must be a string of 9 digits'] }],
    ...['12345678', '1234567890', '123-45-678', '-123456789', '123456789-', '123--456789', '123 45 6789', 'abc-de-fghi', 123456789].map(
      (ssn): [string, unknown, Record<string, string[]>] => ['social_security_number', ssn, { data: ['Social security number must be 9 digits, optionally separated by "-"'] }],
    ),
    ['employer_id_number', '12-345678', { data: ['Employer ID number must be 9 digits, optionally separated by "-"'] }],
    ['card', null, { data: ['Token data is required'] }],
    ['token', undefined, { data: ['Token data is required'] }],
  ])('%s rejects %j', (type, data, errors) => {
    expect(validateTokenData(type, data)).toEqual(errors);
  });

  it.each<[unknown, string]>([
    [undefined, 'Token type is required'],
    ['credit_card', `Token type must be one of ${TOKEN_TYPES.join(', ')}`],
    ['CARD', `Token type must be one of ${TOKEN_TYPES.join(', ')}`],
    ['toString', `Token type must be one of ${TOKEN_TYPES.join(', ')}`],
  ])('type %j is rejected', (type, message) => {
    expect(validateTokenData(type, 'x')).toEqual({ type: [message] });
    expect(isTokenType(type)).toBe(false);
  });

  it('never repeats the data it rejects', () => {
    const typesWithRules = TOKEN_TYPES.filter((t) => t !== 'token');
    const sensitive = fc.stringMatching(/^[0-9 -]{6,24}$/);
    fc.assert(
      fc.property(fc.constantFrom(...typesWithRules), sensitive, (type, value) => {
        const data = type === 'card' ? { number: value, cvc: value } : type === 'bank' ? { routing_number: value, account_number: value } : value;
        const messages = Object.values(validateTokenData(type, data)).flat().join('\n');
        if (value.replace(/\D/g, '').length >= 3) expect(messages).not.toContain(value.trim());
      }),
    );
  });
});

describe('defaults per type', () => {
  it.each([
    ['token', '/general/high/', null, '{{ data | stringify }}', []],
    [
      'card',
      '/pci/high/',
      {
        number: '{{ data.number | reveal_last: 4 }}',
        expiration_month: '{{ data.expiration_month }}',
        expiration_year: '{{ data.expiration_year }}',
      },
      '{{ data.number }}',
      [],
    ],
    ['card_number', '/pci/high/', '{{ data | reveal_last: 4 }}', '{{ data }}', []],
    [
      'bank',
      '/bank/high/',
      { routing_number: '{{ data.routing_number }}', account_number: '{{ data.account_number | reveal_last: 4 }}' },
      '{{ data.account_number }}|{{ data.routing_number }}',
      [],
    ],
    ['us_bank_account_number', '/bank/high/', '{{ data | reveal_last: 4 }}', '{{ data }}', []],
    ['us_bank_routing_number', '/bank/low/', '{{ data | reveal_last: 4 }}', '{{ data }}', []],
    [
      'social_security_number',
      '/pii/high/',
      '{{ data | reveal_last: 4 }}',
      "{{ data | remove: '-' }}",
      ['{{ data }}', "{{ data | replace: '-' }}", '{{ data | last4 }}'],
    ],
    [
      'employer_id_number',
      '/pii/high/',
      '{{ data | reveal_last: 4 }}',
      "{{ data | remove: '-' }}",
      ['{{ data }}', "{{ data | replace: '-' }}", '{{ data | last4 }}'],
    ],
  ] as const)('%s: container %s, mask, fingerprint and search indexes', (type, container, mask, fingerprint, indexes) => {
    expect(defaultContainer(type)).toBe(container);
    expect(defaultMask(type)).toEqual(mask);
    expect(defaultFingerprintExpression(type)).toBe(fingerprint);
    expect(defaultSearchIndexes(type)).toEqual(indexes);
  });

  it('covers all eight types and hands out masks no caller can corrupt', () => {
    expect(TOKEN_TYPES).toHaveLength(8);
    const mask = defaultMask('card') as Record<string, string>;
    expect(() => {
      mask.number = '{{ data.number }}';
    }).toThrow(TypeError);
    expect(defaultMask('card')).toMatchObject({ number: '{{ data.number | reveal_last: 4 }}' });
  });
});

describe('cardDetails', () => {
  it.each([
    [TEST_CARDS.visa, 'visa', '42424242'],
    [TEST_CARDS.mastercard, 'mastercard', '55555555'],
    [TEST_CARDS.mastercard2, 'mastercard', '22230031'],
    [TEST_CARDS.amex, 'american-express', '378282'],
    [TEST_CARDS.discover, 'discover', '60111111'],
    [TEST_CARDS.jcb, 'jcb', '35660020'],
    ['36227206271667', 'diners-club', '362272'],
    ['6200000000000005', 'unionpay', '62000000'],
    ['2200000000000004', 'mir', '22000000'],
    ['6362970000457013', 'elo', '63629700'],
    ['4011780000000006', 'elo', '40117800'], // Elo inside Visa's "4": the longer prefix wins
    ['6500310000000005', 'elo', '65003100'], // Elo inside Discover's "65"
    ['6062826786276634', 'hipercard', '60628267'],
    ['9999999999999995', null, '99999999'],
    ['4222222222222', 'visa', '422222'], // 13 digits: 6-digit BIN
  ])('%s is %s with BIN %s', (number, brand, bin) => {
    expect(cardDetails(number)).toEqual({ bin, last4: number.slice(-4), expiration_month: null, expiration_year: null, brand });
  });

  it('reads a card object with its expiry', () => {
    expect(cardDetails({ number: TEST_CARDS.amex, expiration_month: 3, expiration_year: 2031, cvc: '1234' })).toEqual({
      bin: '378282',
      last4: '0005',
      expiration_month: 3,
      expiration_year: 2031,
      brand: 'american-express',
    });
  });

  it.each([[null], [{}], [{ number: 4242424242424242 }], ['4242-4242'], [42]])('has nothing to say about %j', (data) => {
    expect(cardDetails(data)).toBeNull();
  });
});

describe('containers', () => {
  it.each(['/', '/pci/', '/pci/high/', '/Customer-1/pii_data/', '/a/b/c/d/e/'])('%s is valid', (c) => {
    expect(validateContainer(c)).toBeNull();
  });

  it.each([
    ['pci/', 'A container must start and end with "/"'],
    ['/pci', 'A container must start and end with "/"'],
    ['', 'A container must start and end with "/"'],
    ['//', 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/"'],
    ['/pci//high/', 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/"'],
    ['/pci high/', 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/"'],
    ['/pcí/', 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/"'],
    ['/pci.high/', 'A container is made of non-empty segments of letters, digits, "-" and "_", each followed by "/"'],
    [42, 'A container must be a string'],
  ])('%j is refused: %s', (c, message) => {
    expect(validateContainer(c)).toBe(message);
  });

  it('stores containers lower-case', () => {
    expect(normalizeContainer('/PCI/High/')).toBe('/pci/high/');
  });
});

describe('token ids', () => {
  it.each(['abc', 'c06d0789-0a38-40be-b7cc-c28a718f76f1', 'my token id', 'card_4242', 'émoji-🙂', 'a:b;c,d.e@f!', 'x'.repeat(400)])(
    '%s is valid',
    (id) => {
      expect(validateTokenId(id)).toBeNull();
    },
  );

  it.each(['ab', '', 'x'.repeat(401)])('%j has the wrong length', (id) => {
    expect(validateTokenId(id)).toBe('A token id must be 3 to 400 characters long');
  });

  it.each([...'#/\\+?[]|&=%<>{}^'].map((c) => `ab${c}cd`).concat(['ab\ncd', 'ab\u0000cd', 'ab\u007fcd']))('%j has a forbidden character', (id) => {
    expect(validateTokenId(id)).toBe('A token id may not contain # / \\ + ? [ ] | & = % < > { } ^ or control characters');
  });

  it('counts characters, not UTF-16 units', () => {
    expect(validateTokenId('🙂🙂🙂')).toBeNull();
    expect(validateTokenId('🙂'.repeat(400))).toBeNull();
    expect(validateTokenId('🙂🙂')).not.toBeNull();
  });

  it('refuses a lone surrogate, which has no UTF-8 form, and keeps emoji', () => {
    expect(validateTokenId('bad-\ud800-id')).toBe('A token id may not contain a lone UTF-16 surrogate');
    expect(validateTokenId('bad-\udfff')).not.toBeNull();
    expect(validateTokenId('ok-\ud83d\ude42')).toBeNull();
  });

  it('refuses a non-string id', () => {
    expect(validateTokenId(123456)).toBe('A token id must be a string');
  });
});
