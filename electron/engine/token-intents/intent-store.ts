import { nowIso } from '../clock';
import type { Sealer } from '../storage/crypto';
import type { Db } from '../storage/database';
import type { CardDetails } from '../vault/card-details';
import type { LiveIntent } from '../vault/intent-source';
import type { TokenType } from '../vault/token-types';
import { query } from '../storage/unit';

/** The vault's wipe: every token intent goes. */
export const deleteAllIntents = query('delete all token intents', 'DELETE FROM token_intents');

/** The card or bank summary an intent shows (never its data). */
export type IntentDetails = { card: CardDetails } | { bank: { routing_number: string; account_number_last4: string } } | Record<string, never>;

export interface StoredIntent extends LiveIntent {
  fingerprint: string | null;
  details: IntentDetails;
}

/** An intent without its data. */
export type IntentSummary = Omit<StoredIntent, 'data'>;

interface IntentRow {
  id: string;
  type: string;
  sealed: Buffer;
  fingerprint: string | null;
  details: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
  held_by: string | null;
}

/** The sealed data is bound to its intent's row: a blob copied to another id fails to open. */
const binding = (id: string) => `token_intent:${id}`;

/** The columns of an intent but its data: what a GET and the workbench's list show, read without opening the seal. */
const SUMMARY = 'id, type, fingerprint, details, created_by, created_at, expires_at';
type SummaryRow = Omit<IntentRow, 'sealed' | 'held_by'>;

const summaryOf = (row: SummaryRow): IntentSummary => ({
  id: row.id,
  type: row.type as TokenType,
  fingerprint: row.fingerprint,
  details: row.details ? (JSON.parse(row.details) as IntentDetails) : {},
  created_by: row.created_by,
  created_at: row.created_at,
  expires_at: row.expires_at,
});

/** What every read counts as live: not yet expired, and not held by a transaction that converted it. */
const LIVE = 'expires_at > @now AND held_by IS NULL';

/**
 * Token intents at rest (migration 19): data sealed like a token's, the card or bank summary beside it. An intent
 * whose expiry has passed is gone to every read, whether or not a purge has removed it yet, so expiry holds across a
 * restart and never waits for the schedule.
 */
export class IntentStore {
  private readonly stmt;

  constructor(
    readonly db: Db,
    private readonly sealer: Sealer,
  ) {
    this.stmt = {
      insert: db.prepare(`INSERT INTO token_intents (id, type, sealed, fingerprint, details, created_by, created_at, expires_at)
        VALUES (@id, @type, @sealed, @fingerprint, @details, @created_by, @created_at, @expires_at)`),
      get: db.prepare(`SELECT ${SUMMARY} FROM token_intents WHERE id = @id AND ${LIVE}`),
      getMany: db.prepare(`SELECT * FROM token_intents WHERE id IN (SELECT value FROM json_each(@ids)) AND ${LIVE}`),
      expired: db.prepare('DELETE FROM token_intents WHERE id = @id AND expires_at <= @now'),
      delete: db.prepare(`DELETE FROM token_intents WHERE id = @id AND ${LIVE}`),
      hold: db.prepare(`UPDATE token_intents SET held_by = @transactionId WHERE id = @id AND ${LIVE}`),
      release: db.prepare('UPDATE token_intents SET held_by = NULL WHERE held_by = ?'),
      consumeHeld: db.prepare('DELETE FROM token_intents WHERE held_by = ?'),
      purge: db.prepare('DELETE FROM token_intents WHERE expires_at <= ?'),
      // Holds whose transaction ended while the engine was stopped, or before its end was heard.
      releaseEnded: db.prepare(`UPDATE token_intents SET held_by = NULL WHERE held_by IS NOT NULL
        AND held_by NOT IN (SELECT id FROM transactions WHERE state IN ('open', 'committed'))`),
      consumeCommitted: db.prepare(`DELETE FROM token_intents WHERE held_by IN (SELECT id FROM transactions WHERE state = 'committed')`),
      // Without the sealed data: a list never opens it.
      newest: db.prepare(`SELECT ${SUMMARY} FROM token_intents WHERE ${LIVE}
        ORDER BY created_at DESC, rowid DESC LIMIT @limit`),
    };
  }

  insert(intent: StoredIntent): void {
    this.stmt.insert.run({
      id: intent.id,
      type: intent.type,
      sealed: this.sealer.sealJson(intent.data, binding(intent.id)),
      fingerprint: intent.fingerprint,
      details: JSON.stringify(intent.details),
      created_by: intent.created_by,
      created_at: intent.created_at,
      expires_at: intent.expires_at,
    });
  }

  /** The live intent without its data, or undefined; one found expired is purged on the way (purged on access). */
  get(id: string): IntentSummary | undefined {
    const now = nowIso();
    const row = this.stmt.get.get({ id, now }) as SummaryRow | undefined;
    if (!row) this.stmt.expired.run({ id, now });
    return row && summaryOf(row);
  }

  getMany(ids: readonly string[]): StoredIntent[] {
    return (this.stmt.getMany.all({ ids: JSON.stringify(ids), now: nowIso() }) as IntentRow[]).map((row) => this.hydrate(row));
  }

  /** The newest live intents, up to `limit`, without their data. */
  newest(limit: number): IntentSummary[] {
    return (this.stmt.newest.all({ now: nowIso(), limit }) as SummaryRow[]).map(summaryOf);
  }

  /** Deletes a live intent; false when there is none. */
  delete(id: string): boolean {
    return this.stmt.delete.run({ id, now: nowIso() }).changes > 0;
  }

  /** Holds a live intent for an open transaction; false when there is none. */
  hold(id: string, transactionId: string): boolean {
    return this.stmt.hold.run({ id, transactionId, now: nowIso() }).changes > 0;
  }

  /** The transaction ended: a commit consumes what it held, anything else gives it back. */
  transactionEnded(transactionId: string, committed: boolean): void {
    (committed ? this.stmt.consumeHeld : this.stmt.release).run(transactionId);
  }

  /** Settles holds whose transaction ended unheard (a stop between its end and this store's update). */
  reconcile(): void {
    this.db.transaction(() => {
      this.stmt.consumeCommitted.run();
      this.stmt.releaseEnded.run();
    })();
  }

  purgeExpired(): number {
    return this.stmt.purge.run(nowIso()).changes;
  }

  private hydrate(row: IntentRow): StoredIntent {
    return { ...summaryOf(row), data: this.sealer.openJson(row.sealed, binding(row.id)) };
  }
}
