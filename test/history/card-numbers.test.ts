import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskCardNumbers } from '../../electron/engine/history/card-numbers';
import { luhnValid } from '../../shared/checksums';

/**
 * History's card-number masker, over generated text: every Luhn-valid run of 13 to 19 digits, however it is split by
 * spaces or dashes and whatever surrounds it, keeps at most its last four digits; text without one is left alone.
 */
const RUNS = 3_000;
const SEED = 20261208;

const digit = fc.integer({ min: 0, max: 9 }).map(String);
/** A Luhn-valid number of 13 to 19 digits: random digits, then the check digit that passes. */
const cardNumber = fc.integer({ min: 13, max: 19 }).chain((length) =>
  fc.array(digit, { minLength: length - 1, maxLength: length - 1 }).map((digits) => {
    const body = digits.join('');
    const check = [...'0123456789'].find((candidate) => luhnValid(body + candidate))!;
    return body + check;
  }),
);
const separator = fc.constantFrom(' ', '-');
/** The number as text: cut into groups (sizes of 1 to 6), each joined to the next by a space, a dash or nothing. */
const written = (number: string) =>
  fc.array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom(' ', '-', '')), { minLength: number.length, maxLength: number.length }).map((cuts) => {
    let text = '';
    for (let at = 0, i = 0; at < number.length; i++) {
      const [size, joint] = cuts[i];
      text += number.slice(at, at + size);
      at += size;
      if (at < number.length) text += joint;
    }
    return text;
  });
/** Text with no digit in it: what a card number sits in (JSON, words, punctuation, other scripts). */
const noDigits = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.array(fc.constantFrom('{"n":"', '"}', ' ', ', ', 'card ', 'ref', '\n', '-', '–', '\\u0020', 'é', '\u{1F4B3}', '"', ':'), { maxLength: 6 }).map((pieces) => pieces.join('')),
).map((text) => text.replace(/\d/g, ''));
/** Digits beside the card number, kept apart from it by a separator: other numbers in the same run. */
const neighbour = fc.option(fc.tuple(fc.array(digit, { minLength: 1, maxLength: 8 }), separator).map(([digits, joint]) => ({ digits: digits.join(''), joint })), { nil: undefined });

const digitsIn = (text: string) => text.replace(/\D/g, '');

describe('maskCardNumbers', () => {
  it('leaves at most the last four digits of a card number, however it is written and whatever is around it', () => {
    fc.assert(
      fc.property(cardNumber.chain((number) => fc.tuple(fc.constant(number), written(number), noDigits, noDigits, neighbour, neighbour)), ([number, card, before, after, left, right]) => {
        const head = `${before}${left ? left.digits + left.joint : ''}`;
        const text = `${head}${card}${right ? right.joint + right.digits : ''}${after}`;
        const masked = maskCardNumbers(text);
        // Digits become X in place, so the card number's place in the text is where it was.
        expect(masked.text).toHaveLength(text.length);
        const shown = digitsIn(masked.text.slice(head.length, head.length + card.length));
        expect(shown.length).toBeLessThanOrEqual(4);
        expect(number.endsWith(shown)).toBe(true);
        expect(masked.masked).toBeGreaterThanOrEqual(1);
        expect(maskCardNumbers(masked.text).text).toBe(masked.text);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('changes nothing in text whose digit runs are too short, or fail the Luhn check', () => {
    const notACard = fc.oneof(
      fc.array(digit, { minLength: 1, maxLength: 12 }).map((digits) => digits.join('')),
      cardNumber.map((number) => number.slice(0, -1) + String((Number(number.at(-1)) + 1) % 10)),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(noDigits.map((text) => text.replace(/[ -]/g, '') || '.'), notACard), { maxLength: 5 }), (parts) => {
        const text = parts.map(([words, number]) => `${words}${number}`).join('');
        expect(maskCardNumbers(text)).toEqual({ text, masked: 0 });
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('masks each card number in a longer text, keeping what is around them', () => {
    const text = 'paid 4242 4242 4242 4242 and 5555-5555-5555-4444, ref 4000056655665556x, order 12345678901234 on 2026-12-08';
    expect(maskCardNumbers(text)).toEqual({
      text: 'paid XXXX XXXX XXXX 4242 and XXXX-XXXX-XXXX-4444, ref XXXXXXXXXXXX5556x, order 12345678901234 on 2026-12-08',
      masked: 3,
    });
  });

  it('leaves a token id alone, even when a stretch of its digits passes the Luhn check', () => {
    // "8664-462456653" inside this id is 13 digits that pass the check: History showed the id as "XXXX-XXXXX6653d09".
    const text = '{"number":"{{ 1f8d5f34-7cfe-42af-8664-462456653d09 }}","card":"4242424242424242","id":"12345678-1234-4234-8234-123456789012"}';
    expect(maskCardNumbers(text)).toEqual({
      text: '{"number":"{{ 1f8d5f34-7cfe-42af-8664-462456653d09 }}","card":"XXXXXXXXXXXX4242","id":"12345678-1234-4234-8234-123456789012"}',
      masked: 1,
    });
  });

  it('reads token ids and card numbers side by side left to right, an id (in capitals too) before a number', () => {
    const id = '1F8D5F34-7CFE-42AF-8664-462456653D09';
    expect(maskCardNumbers(`${id}-4242424242424242 x${id}${id.toLowerCase()}`)).toEqual({
      text: `${id}-XXXXXXXXXXXX4242 x${id}${id.toLowerCase()}`,
      masked: 1,
    });
    // A run of digits met first takes the id's first digits with it: what is left of the id is no id.
    expect(maskCardNumbers(`4242 4242 4242 4242${id}`).text).toBe('4242 4242 4242 42421F8D5F34-7CFE-42AF-XXXX-XXXXX6653D09');
    expect(maskCardNumbers('8664-462456653-4242424242424242-')).toEqual({ text: 'XXXX-XXXXX6653-XXXXXXXXXXXX4242-', masked: 2 });
    // An id of digits alone is an id first, though its first three groups are a card number.
    expect(maskCardNumbers('42424242-4242-4242-4242-424242424242').masked).toBe(0);
  });
});
