import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardDetails } from '../../electron/engine/vault/card-details';
import { validateTokenData } from '../../electron/engine/vault/token-types';
import {
  CARD_BRANDS,
  generateAccountNumber,
  generateBankAccount,
  generateCard,
  generateCardNumber,
  generateEin,
  generateRoutingNumber,
  generateSsn,
  UNASSIGNED_EIN_PREFIXES,
  type Random,
} from '../../shared/test-data/generators';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The Tokens page's test data: every generated value passes the validation the API applies (the engine's own
 * functions, 10,000 runs per generator), and cards are of the brand they were generated for as the API reports it.
 */
const RUNS = { numRuns: 10_000 };

/**
 * A random source drawn from fast-check, so a failure replays from its seed and shrinks: uniform in [0, 1), from
 * unbiased 32-bit integers (fast-check's doubles spread over the float encodings, nearly all of them tiny, and its
 * bias towards bounds would draw the same few prefixes again and again).
 */
const unit = fc.noBias(fc.integer({ min: 0, max: 0xffffffff })).map((n) => n / 2 ** 32);
const randomSource = fc.gen().map((g): Random => () => g(() => unit));

describe.each(CARD_BRANDS)('%s cards', (brand) => {
  it('pass the card validation and are reported as their brand', () => {
    fc.assert(
      fc.property(randomSource, (random) => {
        const card = generateCard(brand, random);
        expect(validateTokenData('card', card)).toEqual({});
        expect(validateTokenData('card_number', card.number)).toEqual({});
        expect(cardDetails(card)?.brand).toBe(brand);
      }),
      RUNS,
    );
  });
});

describe('bank data', () => {
  it('bank accounts pass the bank validation (ABA routing checksum)', () => {
    fc.assert(
      fc.property(randomSource, (random) => {
        expect(validateTokenData('bank', generateBankAccount(random))).toEqual({});
      }),
      RUNS,
    );
  });

  it('routing and account numbers pass their own types', () => {
    fc.assert(
      fc.property(randomSource, (random) => {
        expect(validateTokenData('us_bank_routing_number', generateRoutingNumber(random))).toEqual({});
        expect(validateTokenData('us_bank_account_number', generateAccountNumber(random))).toEqual({});
      }),
      RUNS,
    );
  });
});

describe('identifiers no one holds', () => {
  it('SSNs come from area 900-999 or the example range, and pass the SSN validation', () => {
    fc.assert(
      fc.property(randomSource, fc.constantFrom('never-issued' as const, 'example' as const), (random, range) => {
        const ssn = generateSsn(range, random);
        expect(validateTokenData('social_security_number', ssn)).toEqual({});
        const [area, group, serial] = ssn.split('-').map(Number);
        if (range === 'example') expect(ssn).toMatch(/^987-65-432\d$/);
        else expect(area >= 900 && group > 0 && serial > 0).toBe(true);
      }),
      RUNS,
    );
  });

  it('EINs carry a prefix the IRS does not assign, and pass the EIN validation', () => {
    fc.assert(
      fc.property(randomSource, (random) => {
        const ein = generateEin(random);
        expect(validateTokenData('employer_id_number', ein)).toEqual({});
        expect(UNASSIGNED_EIN_PREFIXES).toContain(ein.slice(0, 2));
      }),
      RUNS,
    );
  });
});

describe('through the API itself', () => {
  let bench: TestEngine;
  beforeAll(async () => {
    bench = await startTestEngine({ inMemory: true });
  });
  afterAll(() => bench.stop());

  it('creates every brand and type generated, and reports each card as its brand', async () => {
    const cards = CARD_BRANDS.flatMap((brand) => Array.from({ length: 10 }, () => ({ brand, number: generateCardNumber(brand) })));
    const requests = [
      ...cards.map(({ number }) => ({ type: 'card_number', data: number })),
      { type: 'bank', data: generateBankAccount() },
      { type: 'social_security_number', data: generateSsn() },
      { type: 'social_security_number', data: generateSsn('example') },
      { type: 'employer_id_number', data: generateEin() },
    ];
    const res = await bench.call('POST', '/tokenize', { key: bench.privateKey, body: requests });
    expect(res.status, res.text).toBe(200);
    expect(res.body.slice(0, cards.length).map((token: { card: { brand: string } }) => token.card.brand)).toEqual(cards.map((c) => c.brand));
  });
});
