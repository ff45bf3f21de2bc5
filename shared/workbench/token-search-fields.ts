/**
 * The fields of the token search language, once: the engine's parser takes them, the Tokens page lists them in its
 * help. The service's fields are those of POST /v2/tokens/search; the card fields and words typed alone are the
 * workbench's own, since the vendor's search documents neither.
 */

export interface SearchFieldInfo {
  /** As written in a query; `metadata.<key>` stands for any metadata key. */
  field: string;
  value: 'text' | 'container' | 'date' | 'card';
  description: string;
  /** A term as a user would type it. */
  example: string;
}

export const SERVICE_SEARCH_FIELDS: readonly SearchFieldInfo[] = [
  { field: 'id', value: 'text', description: 'The token id', example: 'id:8f1c9d2e-4b7a-4c3e-9f10-2a3b4c5d6e7f' },
  { field: 'type', value: 'text', description: 'The token type', example: 'type:card' },
  { field: 'container', value: 'container', description: 'Tokens in this container or any container below it', example: 'container:/pci/' },
  { field: 'fingerprint', value: 'text', description: 'The token fingerprint', example: 'fingerprint:AKCUXS83…' },
  { field: 'data', value: 'text', description: "A value one of the token's search indexes evaluated to (cards have none unless given)", example: 'data:123-45-6789' },
  { field: 'metadata.<key>', value: 'text', description: 'The metadata value stored under <key>, exactly', example: 'metadata.order:o-1' },
  { field: 'created_by', value: 'text', description: 'Id of the application that created the token', example: 'created_by:4adb…' },
  { field: 'modified_by', value: 'text', description: 'Id of the application that last modified the token', example: 'modified_by:4adb…' },
  { field: 'created_at', value: 'date', description: 'Creation time: an ISO 8601 date or date-time, or a range', example: 'created_at:[2026-01-01 TO *]' },
  { field: 'modified_at', value: 'date', description: 'Last modification time: an ISO 8601 date or date-time, or a range', example: 'modified_at:2026-03-01' },
  { field: 'expires_at', value: 'date', description: 'Expiry time: an ISO 8601 date or date-time, or a range', example: 'expires_at:{* TO 2027-01-01}' },
];

export const CARD_FIELDS = ['card.last4', 'card.bin', 'card.brand', 'card.expiry', 'card.number'] as const;
export type CardField = (typeof CARD_FIELDS)[number];

/** The card fields of card and card_number tokens, as their `card` details show them. */
export const CARD_SEARCH_FIELDS: readonly (SearchFieldInfo & { field: CardField })[] = [
  { field: 'card.last4', value: 'card', description: 'The last 4 digits of the card number', example: 'card.last4:4242' },
  { field: 'card.bin', value: 'card', description: 'The first 6 digits, or the first 8 of a number of 16 digits or more', example: 'card.bin:424242' },
  { field: 'card.brand', value: 'card', description: 'The brand, as the card details name it (any case; amex, diners too)', example: 'card.brand:visa' },
  { field: 'card.expiry', value: 'card', description: 'Expiry month and year, as 2030-12, 12/2030 or 12/30', example: 'card.expiry:2030-12' },
  { field: 'card.number', value: 'card', description: 'The whole card number (found by its keyed hash)', example: 'card.number:4242424242424242' },
];
