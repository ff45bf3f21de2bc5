import type { TokenType } from './token-types';

/** A live token intent as the vault uses it: converted into a token, or read by an expression. */
export interface LiveIntent {
  id: string;
  type: TokenType;
  /** As created, CVC included (an expression may send it); a conversion drops it. */
  data: unknown;
  created_by: string;
  created_at: string;
  expires_at: string;
}

/**
 * Where the vault finds token intents (docs/api.md, Token intents). The token-intents feature provides it; the vault
 * only converts intents and hands them to expressions, so it depends on this and not on that feature.
 */
export interface IntentSource {
  /** The live intents among `ids`, in no particular order; expired, deleted and converted ones are left out. */
  liveMany(ids: readonly string[]): LiveIntent[];
  /**
   * Takes live intents out of use for their conversion, inside the caller's SQLite transaction: deleted, or held by
   * the open transaction `transactionId` (whose rollback gives them back). A 400 naming the first one gone.
   */
  consume(ids: readonly string[], transactionId: string | undefined): void;
}

/** What a conversion names that is no live intent. */
export const goneIntentDetail = (id: string) => `Token intent ${id} not found: it expired, was converted, or was deleted`;
