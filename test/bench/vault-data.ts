/**
 * Token requests for the vault benchmark, numbered so every one is distinct, each with the masked `data` a caller
 * with bare (mask) permissions must get back. Only that masked form is kept after the request is sent.
 */
import { luhnValid } from '../../shared/checksums';

export type BenchTokenType = 'card' | 'token' | 'social_security_number';

export interface TokenRequest {
  type: BenchTokenType;
  data: unknown;
  metadata?: Record<string, string>;
}

export interface TokenExpectation {
  type: BenchTokenType;
  /** `data` as a mask-transform read shows it; undefined for `token` tokens (no default mask, so redacted). */
  maskedData: unknown;
}

const digits = (n: number, width: number) => String(n % 10 ** width).padStart(width, '0');
/** The default masks of card numbers and dashed SSNs: every digit but the last four is an X, dashes stay. */
const revealLast4 = (text: string) => text.slice(0, -4).replace(/\d/g, 'X') + text.slice(-4);

/** A Luhn-valid 16-digit Visa-range number unique for each `seq` below 10^11. */
function cardNumber(seq: number): string {
  const body = `4000${digits(seq, 11)}`;
  for (let check = 0; check <= 9; check++) if (luhnValid(body + check)) return body + check;
  throw new Error('unreachable: one check digit always satisfies Luhn');
}

export function cardRequest(seq: number): { request: TokenRequest; expected: TokenExpectation } {
  const number = cardNumber(seq);
  const expiration_month = (seq % 12) + 1;
  const expiration_year = 2030 + (seq % 8);
  return {
    request: { type: 'card', data: { number, expiration_month, expiration_year } },
    expected: { type: 'card', maskedData: { number: revealLast4(number), expiration_month, expiration_year } },
  };
}

/** The vault's mix: cards, free-form `token` tokens (each with its customer in metadata) and SSNs in turn. */
export function mixedRequest(seq: number): { request: TokenRequest; expected: TokenExpectation } {
  switch (seq % 3) {
    case 0:
      return cardRequest(seq);
    case 1:
      return {
        request: { type: 'token', data: { account: `acct_${seq}`, note: 'benchmark fill' }, metadata: { customer: `cus_${seq}` } },
        expected: { type: 'token', maskedData: undefined },
      };
    default: {
      const nine = digits(seq, 9);
      const ssn = `${nine.slice(0, 3)}-${nine.slice(3, 5)}-${nine.slice(5)}`;
      return {
        request: { type: 'social_security_number', data: ssn },
        expected: { type: 'social_security_number', maskedData: revealLast4(ssn) },
      };
    }
  }
}

/** Masked data compares as JSON: key order is the mask template's, the same on both sides. */
export function sameData(actual: unknown, expected: unknown): boolean {
  return JSON.stringify(actual) === JSON.stringify(expected);
}
