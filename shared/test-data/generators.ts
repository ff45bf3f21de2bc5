/**
 * Test data that passes the service's validation and could never be a real person's: card numbers per brand (Luhn),
 * US bank accounts (ABA routing checksum), SSNs from ranges never issued or set aside for examples, and EINs with a
 * prefix the IRS does not assign. Pure functions of a random source, so tests can drive them.
 */
import { abaValid, luhnValid } from '../checksums';

/** A number in [0, 1), as Math.random gives. */
export type Random = () => number;

export const CARD_BRANDS = ['visa', 'mastercard', 'american-express', 'discover', 'jcb', 'diners-club', 'unionpay'] as const;
export type CardBrandName = (typeof CARD_BRANDS)[number];

interface BrandRule {
  label: string;
  /**
   * Issuer prefixes as the service's brand table writes them ("51-55": an inclusive range of equal-length prefixes).
   * Only the parts of a brand's space where no other brand issues: Elo issues inside Visa (40, 43, 45), Discover
   * (650-651, 655) and UnionPay (627780), and Hipercard inside Diners (3841), so those are left out.
   */
  prefixes: readonly string[];
  lengths: readonly number[];
  cvcLength: number;
}

export const BRAND_RULES: Record<CardBrandName, BrandRule> = {
  visa: { label: 'Visa', prefixes: ['41-42', '44', '46-49'], lengths: [13, 16, 19], cvcLength: 3 },
  mastercard: { label: 'Mastercard', prefixes: ['51-55', '2221-2720'], lengths: [16], cvcLength: 3 },
  'american-express': { label: 'American Express', prefixes: ['34', '37'], lengths: [15], cvcLength: 4 },
  discover: { label: 'Discover', prefixes: ['6011', '644-649', '652-654', '656-659'], lengths: [16, 19], cvcLength: 3 },
  jcb: { label: 'JCB', prefixes: ['3528-3589'], lengths: [16, 19], cvcLength: 3 },
  'diners-club': { label: 'Diners Club', prefixes: ['300-305', '36', '39'], lengths: [14, 16], cvcLength: 3 },
  unionpay: { label: 'UnionPay', prefixes: ['620-626', '628-629'], lengths: [16, 19], cvcLength: 3 },
};

const pick = <T>(items: readonly T[], random: Random): T => items[Math.floor(random() * items.length)];
/** An integer from `min` to `max`, both included. */
const between = (min: number, max: number, random: Random) => min + Math.floor(random() * (max - min + 1));
const digits = (count: number, random: Random) => Array.from({ length: count }, () => between(0, 9, random)).join('');

/** `partial` completed with the check digit that passes `valid` (Luhn, ABA): the API's own checks pick it. */
function withCheckDigit(partial: string, valid: (digits: string) => boolean): string {
  for (let digit = 0; digit <= 9; digit++) if (valid(partial + digit)) return partial + digit;
  throw new Error('No check digit completes the number');
}

function prefixOf(range: string, random: Random): string {
  const [low, high = low] = range.split('-');
  return String(between(Number(low), Number(high), random)).padStart(low.length, '0');
}

export function generateCardNumber(brand: CardBrandName, random: Random = Math.random): string {
  const rule = BRAND_RULES[brand];
  const prefix = prefixOf(pick(rule.prefixes, random), random);
  return withCheckDigit(prefix + digits(pick(rule.lengths, random) - prefix.length - 1, random), luhnValid);
}

export interface GeneratedCard {
  number: string;
  expiration_month: number;
  expiration_year: number;
  cvc: string;
}

/** A card of the brand, expiring within the next five years. */
export function generateCard(brand: CardBrandName, random: Random = Math.random, now = new Date()): GeneratedCard {
  return {
    number: generateCardNumber(brand, random),
    expiration_month: between(1, 12, random),
    expiration_year: now.getFullYear() + between(1, 5, random),
    cvc: digits(BRAND_RULES[brand].cvcLength, random),
  };
}

/** Federal Reserve routing symbols a routing number may start with: 01-12, 21-32 (thrifts), 61-72 (electronic), 80 (travellers' cheques). */
const ROUTING_SYMBOLS = ['01-12', '21-32', '61-72', '80'] as const;

/** A US routing number whose check digit passes the ABA checksum. */
export function generateRoutingNumber(random: Random = Math.random): string {
  return withCheckDigit(prefixOf(pick(ROUTING_SYMBOLS, random), random) + digits(6, random), abaValid);
}

/** A US account number: 8 to 12 digits, within every bank type's 3 to 17. */
export function generateAccountNumber(random: Random = Math.random): string {
  return String(between(1, 9, random)) + digits(between(7, 11, random), random);
}

export function generateBankAccount(random: Random = Math.random): { routing_number: string; account_number: string } {
  return { routing_number: generateRoutingNumber(random), account_number: generateAccountNumber(random) };
}

/** SSNs that are no one's: area 900-999 was never issued; 987-65-4320 to 987-65-4329 are set aside for examples. */
export type SsnRange = 'never-issued' | 'example';

export function generateSsn(range: SsnRange = 'never-issued', random: Random = Math.random): string {
  if (range === 'example') return `987-65-432${between(0, 9, random)}`;
  const group = String(between(1, 99, random)).padStart(2, '0');
  const serial = String(between(1, 9999, random)).padStart(4, '0');
  return `${between(900, 999, random)}-${group}-${serial}`;
}

/** EIN prefixes the IRS does not assign (its "valid EIN prefixes" list leaves these out). */
export const UNASSIGNED_EIN_PREFIXES = ['00', '07', '08', '09', '17', '18', '19', '28', '29', '49', '69', '70', '78', '79', '89', '96', '97'] as const;

export function generateEin(random: Random = Math.random): string {
  return `${pick(UNASSIGNED_EIN_PREFIXES, random)}-${digits(7, random)}`;
}
