/**
 * The `card` object of card and card_number tokens: BIN, last 4, expiry and brand (docs/api.md, Token types).
 * Brand names are the hosted service's (its card-details docs); it answers null for a number it cannot place.
 */

export type CardBrand =
  | 'visa'
  | 'mastercard'
  | 'american-express'
  | 'discover'
  | 'diners-club'
  | 'jcb'
  | 'unionpay'
  | 'mir'
  | 'elo'
  | 'hipercard';

export interface CardDetails {
  bin: string;
  last4: string;
  expiration_month: number | null;
  expiration_year: number | null;
  brand: CardBrand | null;
}

/**
 * Issuer prefixes per brand: a single prefix ("4") or an inclusive range of equal-length prefixes ("2221-2720").
 * Ranges overlap on purpose (Elo issues inside Visa's and Discover's space); the longest matching prefix wins.
 */
const BRAND_PREFIXES: Record<CardBrand, readonly string[]> = {
  visa: ['4'],
  mastercard: ['51-55', '2221-2720'],
  'american-express': ['34', '37'],
  discover: ['6011', '644-649', '65'],
  'diners-club': ['300-305', '36', '38', '39'],
  jcb: ['1800', '2131', '3528-3589'],
  unionpay: ['62', '8100-8171'],
  mir: ['2200-2204'],
  elo: [
    '401178-401179', '431274', '438935', '451416', '457393', '457631-457632', '504175', '506699-506778',
    '509000-509999', '627780', '636297', '636368', '650031-650033', '650035-650051', '650405-650439',
    '650485-650538', '650541-650598', '650700-650718', '650720-650727', '650901-650978', '651652-651679',
    '655000-655019', '655021-655058',
  ],
  hipercard: ['384100', '384140', '384160', '606282'],
};

/** Every brand the details name, in the order the hosted service's docs list them. */
export const CARD_BRANDS = Object.keys(BRAND_PREFIXES) as CardBrand[];

/** The token types that carry a card number, and so `card` details. */
const CARD_TYPES = new Set(['card', 'card_number']);
export const isCardType = (type: string): boolean => CARD_TYPES.has(type);

interface PrefixRange {
  brand: CardBrand;
  low: string;
  high: string;
}

// Longest prefixes first, so the first range that matches is the most specific one.
const PREFIX_RANGES: readonly PrefixRange[] = Object.entries(BRAND_PREFIXES)
  .flatMap(([brand, prefixes]) =>
    prefixes.map((prefix) => {
      const [low, high = low] = prefix.split('-');
      return { brand: brand as CardBrand, low, high };
    }),
  )
  .sort((a, b) => b.low.length - a.low.length);

/** The brand of a card number (digits only), or null when no known prefix matches. */
export function cardBrand(number: string): CardBrand | null {
  for (const { brand, low, high } of PREFIX_RANGES) {
    const head = number.slice(0, low.length);
    // Equal-length digit strings compare like the numbers they spell.
    if (head.length === low.length && head >= low && head <= high) return brand;
  }
  return null;
}

/** The BIN as the hosted service reports it: 8 digits for numbers of 16 digits or more, 6 below that. */
export function cardBin(number: string): string {
  return number.slice(0, number.length >= 16 ? 8 : 6);
}

const ONLY_DIGITS = /^\d+$/;

function integerOrNull(value: unknown): number | null {
  return Number.isInteger(value) ? (value as number) : null;
}

/** The number of already-validated token data (a card_number string or a card object), or null for none all digits. */
export function cardNumberOf(data: unknown): string | null {
  const number = typeof data === 'string' ? data : (data as Record<string, unknown> | null)?.number;
  return typeof number === 'string' && ONLY_DIGITS.test(number) ? number : null;
}

/**
 * Details of already-validated token data: a card_number string or a card object.
 * Null when there is no all-digit number to describe.
 */
export function cardDetails(data: unknown): CardDetails | null {
  const number = cardNumberOf(data);
  if (number === null) return null;
  const card = typeof data === 'string' ? null : (data as Record<string, unknown>);
  return {
    bin: cardBin(number),
    last4: number.slice(-4),
    expiration_month: integerOrNull(card?.expiration_month),
    expiration_year: integerOrNull(card?.expiration_year),
    brand: cardBrand(number),
  };
}
