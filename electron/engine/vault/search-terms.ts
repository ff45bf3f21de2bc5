import { CARD_FIELDS, type CardField } from '../../../shared/workbench/token-search-fields';
import type { Sealer } from '../storage/crypto';
import { CARD_BRANDS, cardDetails, cardNumberOf, isCardType, type CardBrand } from './card-details';

/**
 * What a token is found by besides its columns, each value stored only as a keyed hash (token_search_terms): `search`,
 * the values its search indexes render to (the service's `data:`); derived from the token itself, its card details and
 * its metadata values. Each field hashes under its own purpose, so a card's last four never matches a search index
 * that renders the same digits, and the database holds no plaintext of either.
 */
export type TermField = 'search' | 'metadata' | CardField;

/** 128 bits in base64url. */
const DERIVED_HASH_CHARS = 22;

/**
 * The hash stored for a field's value. Terms derived from the token keep 128 bits of it: several per card go into one
 * index, and a shorter key makes each insert cheaper. `search` terms keep the whole hash that vaults already hold.
 */
export function termHash(sealer: Sealer, field: TermField, value: string): string {
  const hash = sealer.fingerprint(`${field}\u0000${value}`);
  return field === 'search' ? hash : hash.slice(0, DERIVED_HASH_CHARS);
}


export interface TermSource {
  type: string;
  metadata: Record<string, string>;
  /** Read for card types only: the backlog unseals no other token's data. */
  data: unknown;
}

/** Metadata values match in any case: stored and sought in JavaScript's lower case. */
const metadataValue = (value: string) => value.toLowerCase();

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The field values a token is found by, derived from it: its card details (card types) and metadata values. */
export function derivedTerms(token: TermSource): [TermField, string][] {
  const terms = Object.values(token.metadata).map((value): [TermField, string] => ['metadata', metadataValue(value)]);
  const card = isCardType(token.type) ? cardDetails(token.data) : null;
  if (!card) return terms;
  const number = cardNumberOf(token.data)!;
  terms.push(['card.number', number], ['card.last4', card.last4], ['card.bin', number.slice(0, 6)]);
  // The 8-digit BIN the details show for longer numbers; its first 6 find the card too.
  if (card.bin.length === 8) terms.push(['card.bin', card.bin]);
  if (card.brand) terms.push(['card.brand', card.brand]);
  if (card.expiration_month !== null && card.expiration_year !== null) {
    terms.push(['card.expiry', `${card.expiration_year}-${pad2(card.expiration_month)}`]);
  }
  return terms;
}

/** derivedTerms as the hashes stored. */
export const derivedTermHashes = (sealer: Sealer, token: TermSource): string[] =>
  derivedTerms(token).map(([field, value]) => termHash(sealer, field, value));

/** Brand names without case, spaces or hyphens ("American Express", "american-express"), and two common short names. */
const brandKey = (text: string) => text.toLowerCase().replace(/[^a-z]/g, '');
const BRANDS = new Map<string, CardBrand>([
  ...CARD_BRANDS.map((brand): [string, CardBrand] => [brandKey(brand), brand]),
  ['amex', 'american-express'],
  ['diners', 'diners-club'],
]);

const MONTH_YEAR = /^(\d{1,2})\/(\d{2}|\d{4})$/;
const YEAR_MONTH = /^(\d{4})-(\d{1,2})$/;

function expiry(text: string): string | null {
  let month: number;
  let year: number;
  const monthFirst = MONTH_YEAR.exec(text);
  const yearFirst = YEAR_MONTH.exec(text);
  if (monthFirst) {
    month = Number(monthFirst[1]);
    year = Number(monthFirst[2]) + (monthFirst[2].length === 2 ? 2000 : 0);
  } else if (yearFirst) {
    [year, month] = [Number(yearFirst[1]), Number(yearFirst[2])];
  } else return null;
  return month >= 1 && month <= 12 ? `${year}-${pad2(month)}` : null;
}

/** A value typed for each card field, as the card's own is indexed; null when it cannot be one. */
const CARD_VALUE: Record<CardField, (text: string) => string | null> = {
  'card.last4': (text) => (/^\d{4}$/.test(text) ? text : null),
  'card.bin': (text) => (/^(\d{6}|\d{8})$/.test(text) ? text : null),
  'card.brand': (text) => BRANDS.get(brandKey(text)) ?? null,
  'card.expiry': expiry,
  // Grouped as printed on the card ("4242 4242 4242 4242") it is still the number.
  'card.number': (text) => {
    const digits = text.replace(/[\s-]/g, '');
    return /^\d{13,19}$/.test(digits) ? digits : null;
  },
};

/** What a card field's value must be, for the parser's error (never the value given, which may be a card number). */
export const CARD_VALUE_RULE: Record<CardField, string> = {
  'card.last4': 'takes the last 4 digits of a card number, e.g. card.last4:4242',
  'card.bin': 'takes the first 6 or 8 digits of a card number, e.g. card.bin:424242',
  'card.brand': `takes one of ${CARD_BRANDS.join(', ')} (any case; amex and diners too)`,
  'card.expiry': 'takes a month and year, e.g. card.expiry:2030-12, card.expiry:12/2030 or card.expiry:12/30',
  'card.number': 'takes a whole card number: 13 to 19 digits',
};

export const cardFieldValue = (field: CardField, text: string): string | null => CARD_VALUE[field](text);

/**
 * Every field value a word typed alone may mean: a search index's value as typed, a metadata value in any case, and
 * each card field it reads as (4 digits a last four, 6 or 8 a BIN, a brand name, an expiry, a whole number).
 */
export function textTerms(text: string): [TermField, string][] {
  const terms: [TermField, string][] = [
    ['search', text],
    ['metadata', metadataValue(text)],
  ];
  for (const field of CARD_FIELDS) {
    const value = cardFieldValue(field, text);
    if (value !== null) terms.push([field, value]);
  }
  return terms;
}
