import type { Unit } from '../storage/unit';
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
  /**
   * The live intents among `ids`, in no particular order; expired, deleted and converted ones are left out. At once
   * over SQLite, a Promise over PostgreSQL.
   */
  liveMany(ids: readonly string[]): LiveIntent[] | Promise<LiveIntent[]>;
  /**
   * The unit that takes live intents out of use for their conversion, joined to the unit that lands their tokens:
   * deleted, or held by the open transaction `transactionId` (whose rollback gives them back). A 400 naming the first
   * one gone, which undoes the whole unit.
   */
  consuming(ids: readonly string[], transactionId: string | undefined): Unit<void>;
  /** Once that unit has committed: the intents are converted. */
  consumed(ids: readonly string[]): void;
}

/** What a conversion names that is no live intent. */
export const goneIntentDetail = (id: string) => `Token intent ${id} not found: it expired, was converted, or was deleted`;
