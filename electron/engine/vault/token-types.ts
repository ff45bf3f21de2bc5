/**
 * The hosted service's token types (docs/api.md, Token types; its token-types docs): how each validates its data,
 * and its default container, mask, fingerprint expression and search indexes. One table row per type.
 * The service never reformats data (card numbers go in "without any separators"), so neither do we: invalid
 * input is rejected, never normalised. Error messages name fields, never their values.
 */
import { z } from 'zod';
import { abaValid, luhnValid } from '../../../shared/checksums';

export const TOKEN_TYPES = [
  'token',
  'card',
  'card_number',
  'bank',
  'us_bank_account_number',
  'us_bank_routing_number',
  'social_security_number',
  'employer_id_number',
] as const;

export type TokenType = (typeof TOKEN_TYPES)[number];

/** A mask template: JSON whose string leaves are Liquid expressions over `data`; null = no mask (redact). */
export type MaskTemplate = string | Readonly<Record<string, string>> | null;

/** Field path (`data`, `data.number`, `type`) → messages; empty when valid. */
export type FieldErrors = Record<string, string[]>;

/** One error callback for a field: says "required" when it is absent, else what shape it must have. */
function expecting(label: string, shape: string) {
  return { error: (issue: { input?: unknown }) => (issue.input === undefined ? `${label} is required` : `${label} must be ${shape}`) };
}

function digitString(label: string, shape: string, pattern: RegExp, checksum?: { name: string; valid: (s: string) => boolean }) {
  const error = expecting(label, shape);
  const format = z.string(error).regex(pattern, { ...error, abort: true });
  return checksum ? format.refine(checksum.valid, { error: `${label} fails the ${checksum.name}` }) : format;
}

function integerBetween(label: string, shape: string, min: number, max: number) {
  const error = expecting(label, shape);
  return z.int(error).min(min, error).max(max, error);
}

const LUHN = { name: 'Luhn check', valid: luhnValid };
const ABA = { name: 'ABA checksum', valid: abaValid };
// Nine digits; a "-" may sit between digits (123-45-6789, 12-3456789), never first, last or doubled.
const NINE_DIGITS_DASHED = /^(?=(?:-?\d){9}$)\d+(?:-\d+)*$/;

const cardNumber = digitString('Card number', 'a string of 13 to 19 digits without separators', /^\d{13,19}$/, LUHN);
const routingNumber = digitString('Routing number', 'a string of 9 digits', /^\d{9}$/, ABA);

const cardSchema = z.strictObject({
  number: cardNumber,
  expiration_month: integerBetween('Expiration month', 'an integer from 1 to 12', 1, 12).nullish(),
  expiration_year: integerBetween('Expiration year', 'a 4-digit integer', 1000, 9999).nullish(),
  cvc: digitString('CVC', 'a string of 3 or 4 digits', /^\d{3,4}$/).nullish(),
}, { error: 'Card data must be an object with a number' });

const bankSchema = z.strictObject({
  routing_number: routingNumber,
  account_number: digitString('Account number', 'a string of up to 17 digits', /^\d{1,17}$/),
}, { error: 'Bank data must be an object with a routing_number and an account_number' });

// Also the SSN and EIN default: reveal_last keeps the dashes where the data has them (123456789 → XXXXX6789).
const REVEAL_LAST_4 = '{{ data | reveal_last: 4 }}';
// The hosted service's defaults for dashed identifiers: as given, without dashes, and the last 4.
const DASHED_ID_SEARCH_INDEXES = ['{{ data }}', "{{ data | replace: '-' }}", '{{ data | last4 }}'] as const;

interface TokenTypeRule {
  container: string;
  mask: MaskTemplate;
  fingerprint: string;
  searchIndexes: readonly string[];
  /** Schema of `data` (issue paths are relative to it); null accepts any JSON. */
  schema: z.ZodType | null;
}

const RULES: Record<TokenType, TokenTypeRule> = {
  token: {
    container: '/general/high/',
    mask: null,
    fingerprint: '{{ data | stringify }}',
    searchIndexes: [],
    schema: null,
  },
  card: {
    container: '/pci/high/',
    mask: Object.freeze({
      number: '{{ data.number | reveal_last: 4 }}',
      expiration_month: '{{ data.expiration_month }}',
      expiration_year: '{{ data.expiration_year }}',
    }),
    fingerprint: '{{ data.number }}',
    searchIndexes: [],
    schema: cardSchema,
  },
  card_number: {
    container: '/pci/high/',
    mask: REVEAL_LAST_4,
    fingerprint: '{{ data }}',
    searchIndexes: [],
    schema: cardNumber,
  },
  bank: {
    container: '/bank/high/',
    mask: Object.freeze({
      routing_number: '{{ data.routing_number }}',
      account_number: '{{ data.account_number | reveal_last: 4 }}',
    }),
    fingerprint: '{{ data.account_number }}|{{ data.routing_number }}',
    searchIndexes: [],
    schema: bankSchema,
  },
  us_bank_account_number: {
    container: '/bank/high/',
    mask: REVEAL_LAST_4,
    fingerprint: '{{ data }}',
    searchIndexes: [],
    schema: digitString('Account number', 'a string of 3 to 17 digits', /^\d{3,17}$/),
  },
  us_bank_routing_number: {
    container: '/bank/low/',
    mask: REVEAL_LAST_4,
    fingerprint: '{{ data }}',
    searchIndexes: [],
    schema: routingNumber,
  },
  social_security_number: {
    container: '/pii/high/',
    mask: REVEAL_LAST_4,
    fingerprint: "{{ data | remove: '-' }}",
    searchIndexes: DASHED_ID_SEARCH_INDEXES,
    schema: digitString('Social security number', '9 digits, optionally separated by "-"', NINE_DIGITS_DASHED),
  },
  employer_id_number: {
    container: '/pii/high/',
    mask: REVEAL_LAST_4,
    fingerprint: "{{ data | remove: '-' }}",
    searchIndexes: DASHED_ID_SEARCH_INDEXES,
    schema: digitString('Employer ID number', '9 digits, optionally separated by "-"', NINE_DIGITS_DASHED),
  },
};

export function isTokenType(type: unknown): type is TokenType {
  return typeof type === 'string' && Object.hasOwn(RULES, type);
}

function addError(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** Validates a create (or merged update) request's `type` and `data`. Empty object when valid. */
export function validateTokenData(type: unknown, data: unknown): FieldErrors {
  const errors: FieldErrors = {};
  if (!isTokenType(type)) {
    addError(errors, 'type', type === undefined || type === null
      ? 'Token type is required'
      : `Token type must be one of ${TOKEN_TYPES.join(', ')}`);
    return errors;
  }
  if (data === undefined || data === null) {
    addError(errors, 'data', 'Token data is required');
    return errors;
  }
  const result = RULES[type].schema?.safeParse(data);
  for (const issue of result?.error?.issues ?? []) {
    const field = ['data', ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) addError(errors, `${field}.${key}`, `Not a field of ${type} data`);
    } else {
      addError(errors, field, issue.message);
    }
  }
  return errors;
}

export function defaultContainer(type: TokenType): string {
  return RULES[type].container;
}

/** The type's default mask template (frozen; copy before changing), or null when the type has none. */
export function defaultMask(type: TokenType): MaskTemplate {
  return RULES[type].mask;
}

export function defaultFingerprintExpression(type: TokenType): string {
  return RULES[type].fingerprint;
}

/** Search indexes a token of this type gets when the request names none. */
export function defaultSearchIndexes(type: TokenType): readonly string[] {
  return RULES[type].searchIndexes;
}
