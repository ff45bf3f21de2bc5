import { cardRequest, mixedRequest } from './vault-data';
import type { FilledToken } from './vault-fill';

export interface SearchCase {
  what: string;
  /** As typed into the Tokens page's search box. */
  query: string;
  /** How many tokens of the fill it must find. */
  expected: number;
}

interface Card {
  number: string;
  expiration_month: number;
  expiration_year: number;
}

/**
 * The Tokens page's searches of one card of the fill (its newest) and one token's metadata, each with the count it
 * must find, worked out from the fill's numbered requests (the plaintext of token n is mixedRequest(n)'s): the id
 * search first, the baseline every other is read beside.
 */
export function cardSearchCases(filled: readonly FilledToken[]): SearchCase[] {
  const cards = filled.flatMap((token, seq) => (token.type === 'card' ? [cardRequest(seq).request.data as Card] : []));
  const card = cards[cards.length - 1];
  const count = (same: (other: Card) => boolean) => cards.filter(same).length;
  const customerAt = filled.findLastIndex((token) => token.type === 'token');
  const customer = mixedRequest(customerAt).request.metadata!.customer;
  const last4 = card.number.slice(-4);
  // Four digits typed alone are also the last four an SSN's default search indexes hold.
  const ssnsEnding = filled.filter((token, seq) => token.type === 'social_security_number' && (mixedRequest(seq).request.data as string).endsWith(last4)).length;
  const expiry = (c: Card) => `${c.expiration_month}/${c.expiration_year}`;
  return [
    { what: 'one token by id (baseline)', query: filled[filled.length - 1].id, expected: 1 },
    { what: 'cards by last four (and SSNs by theirs)', query: last4, expected: count((c) => c.number.endsWith(last4)) + ssnsEnding },
    { what: 'cards by a 6-digit BIN', query: card.number.slice(0, 6), expected: count((c) => c.number.startsWith(card.number.slice(0, 6))) },
    { what: 'cards by an 8-digit BIN', query: card.number.slice(0, 8), expected: count((c) => c.number.startsWith(card.number.slice(0, 8))) },
    { what: 'cards by brand', query: 'visa', expected: cards.length },
    { what: 'cards by expiry', query: expiry(card), expected: count((c) => expiry(c) === expiry(card)) },
    { what: 'a card by its whole number', query: card.number, expected: 1 },
    { what: 'a token by a metadata value, in another case', query: customer.toUpperCase(), expected: 1 },
    { what: 'cards by last four, as a field', query: `card.last4:${last4}`, expected: count((c) => c.number.endsWith(last4)) },
  ];
}
