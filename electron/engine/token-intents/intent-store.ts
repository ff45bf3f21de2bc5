import { nowIso } from '../clock';
import type { Sealer } from '../storage/crypto';
import type { CardDetails } from '../vault/card-details';
import type { LiveIntent } from '../vault/intent-source';
import type { TokenType } from '../vault/token-types';
import { type Answer, answerOf, type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';

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

const statements = {
  insert: query('insert token intent', `INSERT INTO token_intents (id, type, sealed, fingerprint, details, created_by, created_at, expires_at)
    VALUES (@id, @type, @sealed, @fingerprint, @details, @created_by, @created_at, @expires_at)`),
  get: query<SummaryRow>('token intent', `SELECT ${SUMMARY} FROM token_intents WHERE id = @id AND ${LIVE}`),
  getMany: query<IntentRow>('token intents by ids', `SELECT * FROM token_intents WHERE id IN (SELECT value FROM json_each(@ids)) AND ${LIVE}`, {
    postgres: `SELECT * FROM token_intents WHERE id IN (SELECT json_array_elements_text(@ids::json)) AND ${LIVE}`,
  }),
  expired: query('delete expired token intent', 'DELETE FROM token_intents WHERE id = @id AND expires_at <= @now'),
  delete: query('delete token intent', `DELETE FROM token_intents WHERE id = @id AND ${LIVE}`),
  hold: query('hold token intent', `UPDATE token_intents SET held_by = @transactionId WHERE id = @id AND ${LIVE}`),
  release: query('release held token intents', 'UPDATE token_intents SET held_by = NULL WHERE held_by = ?'),
  consumeHeld: query('consume held token intents', 'DELETE FROM token_intents WHERE held_by = ?'),
  purge: query('purge expired token intents', 'DELETE FROM token_intents WHERE expires_at <= ?'),
  // Holds whose transaction ended while the engine was stopped, or before its end was heard.
  releaseEnded: query('release token intents of ended transactions', `UPDATE token_intents SET held_by = NULL WHERE held_by IS NOT NULL
    AND held_by NOT IN (SELECT id FROM transactions WHERE state IN ('open', 'committed'))`),
  consumeCommitted: query('consume token intents of committed transactions', `DELETE FROM token_intents WHERE held_by IN (SELECT id FROM transactions WHERE state = 'committed')`),
  // Without the sealed data: a list never opens it. Ties in time in the order they were made: SQLite's row id, and
  // on PostgreSQL the id (PostgreSQL tables have no row id).
  newest: query<SummaryRow>('newest token intents', `SELECT ${SUMMARY} FROM token_intents WHERE ${LIVE} ORDER BY created_at DESC, rowid DESC LIMIT @limit`, {
    postgres: `SELECT ${SUMMARY} FROM token_intents WHERE ${LIVE} ORDER BY created_at DESC, id DESC LIMIT @limit`,
  }),
};

/** Takes a live intent out of use for a conversion: deleted, or held by the open transaction (lower-cased id). */
export function* takingIntent(id: string, transactionId: string | undefined): Unit<boolean> {
  const now = nowIso();
  const taken = transactionId === undefined ? yield* tx.run(statements.delete, { id, now }) : yield* tx.run(statements.hold, { id, transactionId, now });
  return taken.changes > 0;
}

/**
 * The intents a transaction's conversions held, settled as it ends: consumed by its commit, given back by a rollback or
 * an expiry. The transaction's own end unit runs it, so no answer goes out before its intents are settled.
 */
export function* settleHolds(transactionId: string, committed: boolean): Unit<void> {
  yield* tx.run(committed ? statements.consumeHeld : statements.release, [transactionId]);
}

/**
 * Token intents at rest (migration 19): data sealed like a token's, the card or bank summary beside it. An intent
 * whose expiry has passed is gone to every read, whether or not a purge has removed it yet, so expiry holds across a
 * restart and never waits for the schedule. Over either runner (`R`): `getMany`, which conversions and expressions
 * read on a request's path, and the engine's housekeeping answer at once over SQLite's; the rest is awaited. It holds nothing in memory.
 */
export class IntentStore<R extends AnyUnitRunner = AnyUnitRunner> {
  constructor(
    readonly units: R,
    private readonly sealer: Sealer,
  ) {}

  /** The unit that stores a new intent, its data sealed (before the unit: a retried unit seals nothing again). */
  inserting(intent: StoredIntent): () => Unit<void> {
    const row = {
      id: intent.id,
      type: intent.type,
      sealed: this.sealer.sealJson(intent.data, binding(intent.id)),
      fingerprint: intent.fingerprint,
      details: JSON.stringify(intent.details),
      created_by: intent.created_by,
      created_at: intent.created_at,
      expires_at: intent.expires_at,
    };
    return function* () {
      yield* tx.run(statements.insert, row);
    };
  }

  /** The live intent without its data, or undefined; one found expired is purged on the way (purged on access). */
  async get(id: string): Promise<IntentSummary | undefined> {
    const now = nowIso();
    const row = await this.units.read(() => tx.get(statements.get, { id, now }));
    // A read takes no write transaction: only a miss purges, and its delete is conditional, so replicas may both try.
    if (!row) await this.units.run(() => tx.run(statements.expired, { id, now }));
    return row && summaryOf(row);
  }

  getMany(ids: readonly string[]): Answer<R, StoredIntent[]> {
    return answerOf<R, IntentRow[], StoredIntent[]>(this.units.read(() => tx.all(statements.getMany, { ids: JSON.stringify(ids), now: nowIso() })), (rows) =>
      rows.map((row) => this.hydrate(row)),
    );
  }

  /** The newest live intents, up to `limit`, without their data. */
  async newest(limit: number): Promise<IntentSummary[]> {
    return (await this.units.read(() => tx.all(statements.newest, { now: nowIso(), limit }))).map(summaryOf);
  }

  /** The unit that deletes a live intent; false when there is none. */
  *deleting(id: string): Unit<boolean> {
    return (yield* tx.run(statements.delete, { id, now: nowIso() })).changes > 0;
  }

  /** Settles holds whose transaction ended unheard (a stop between its end and this store's update). */
  reconcile(): Answer<R, void> {
    return this.units.run(function* () {
      yield* tx.run(statements.consumeCommitted);
      yield* tx.run(statements.releaseEnded);
    }) as Answer<R, void>;
  }

  purgeExpired(): Answer<R, number> {
    return answerOf<R, { changes: number }, number>(this.units.run(() => tx.run(statements.purge, [nowIso()])), (result) => result.changes);
  }

  private hydrate(row: IntentRow): StoredIntent {
    return { ...summaryOf(row), data: this.sealer.openJson(row.sealed, binding(row.id)) };
  }
}
