import type { TokenRecord } from '../../electron/engine/expressions';

export const CARD_ID = '8f1c9d2e-4b7a-4c3e-9f10-2a3b4c5d6e7f';

export function token(id: string, data: unknown, extra: Partial<TokenRecord> = {}): TokenRecord {
  return { id, type: 'token', data, containers: ['/general/high/'], metadata: {}, ...extra };
}

export const card = token(
  CARD_ID,
  { number: '4242424242424242', expiration_month: 3, expiration_year: 2030, cvc: '123' },
  { type: 'card', containers: ['/pci/high/'], metadata: { customer: 'c-1' } },
);

export function tokenMap(...tokens: TokenRecord[]): Map<string, TokenRecord> {
  return new Map(tokens.map((t) => [t.id, t]));
}
