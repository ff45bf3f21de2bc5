import type { TokenView } from '../../../../shared/workbench/token-contract';

/** The token's data as one line: masked text, or the masked fields of an object; "redacted" when the reader gets none. */
export function dataSummary(data: unknown): string {
  if (data === undefined || data === null) return 'redacted';
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  if (typeof data !== 'object' || Array.isArray(data)) return text(data);
  return Object.values(data)
    .filter((value) => value !== null && value !== undefined)
    .map(text)
    .join(' · ');
}

export const metadataSummary = (metadata: TokenView['metadata']) =>
  Object.entries(metadata ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');

const SHORT = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const FULL = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A moment as this machine's locale writes it, short enough for a column: "Nov 26, 11:02". */
export const shortTime = (iso: string) => SHORT.format(new Date(iso));
/** A moment to the second, for the detail. */
export const fullTime = (iso: string) => FULL.format(new Date(iso));

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** How far a moment is from `now`, in the largest whole unit: "in 3 hours", "2 days ago". */
export function fromNow(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const [unit, size] = UNITS.find(([, unitMs]) => Math.abs(ms) >= unitMs) ?? UNITS[UNITS.length - 1];
  return relative.format(Math.trunc(ms / size), unit);
}

/** Who the tokens page lists a type as. */
export const TYPE_LABELS: Record<string, string> = {
  token: 'Generic (any JSON)',
  card: 'Card',
  card_number: 'Card number',
  bank: 'Bank account',
  us_bank_account_number: 'US bank account number',
  us_bank_routing_number: 'US bank routing number',
  social_security_number: 'Social security number',
  employer_id_number: 'Employer ID number',
};
export const TOKEN_TYPES = Object.keys(TYPE_LABELS);

/** A card's expiry as it is printed, `12/2040`; empty when the data has none. */
export function cardExpiry(card: { expiration_month: number | null; expiration_year: number | null }): string {
  return card.expiration_month !== null && card.expiration_year !== null ? `${String(card.expiration_month).padStart(2, '0')}/${card.expiration_year}` : '';
}
