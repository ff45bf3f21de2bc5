import type { TransactionCounts, TransactionFilter } from '../../../shared/workbench/transaction-contract';
import type { PagePosition } from '../server/page-cursor';
import { ApiProblem } from '../server/problem';
import type { Sealer } from '../storage/crypto';
import { type Answer, answerOf, type AnyUnitRunner, query, tx, type Unit, type UnitRunner } from '../storage/unit';
import { liveTokenRows, type TokenRow, type TokenWrite } from '../vault/token-store';

export type TransactionState = 'open' | 'committed' | 'rolled_back' | 'expired';

export interface TransactionRecord {
  id: string;
  state: TransactionState;
  /** The application whose key created it. */
  created_by: string;
  created_at: string;
  expires_at: string;
  /** When it left `open`; null while open. */
  ended_at: string | null;
}

/** One enlisted write as kept: `write` is null once the transaction has ended (its sealed copy is gone). */
export interface StagedOperation {
  token_id: string;
  op: TokenWrite['op'];
  enlisted_at: string;
  /** The application whose request staged it; null for writes staged before this was recorded. */
  enlisted_by: string | null;
  write: TokenWrite | null;
}

interface OperationRow {
  transaction_id: string;
  seq: number;
  op: TokenWrite['op'];
  token_id: string;
  sealed: Buffer | null;
  enlisted_at: string;
  enlisted_by: string | null;
}

export const tokenIdOf = (write: TokenWrite): string => (write.op === 'delete' ? write.id : write.token.id);

/** A batch of ids as one parameter: a JSON array, read back by json_each. */
const idList = (ids: readonly string[]) => JSON.stringify(ids);

const unitQueries = {
  insert: query('insert transaction', `INSERT INTO transactions (id, state, created_by, created_at, expires_at, ended_at)
    VALUES (@id, @state, @created_by, @created_at, @expires_at, @ended_at)`),
  // Locked on PostgreSQL: what is staged in it or ends it decides from the state read here.
  get: query<TransactionRecord>('transaction', 'SELECT * FROM transactions WHERE id = ?', { postgres: 'SELECT * FROM transactions WHERE id = $1 FOR UPDATE' }),
  peek: query<TransactionRecord>('transaction as read', 'SELECT * FROM transactions WHERE id = ?'),
  due: query<string>("due transactions", "SELECT id FROM transactions WHERE state = 'open' AND expires_at <= ? ORDER BY expires_at", { pluck: true }),
  nextExpiry: query<{ at: string | null }>('next transaction expiry', "SELECT MIN(expires_at) AS at FROM transactions WHERE state = 'open'"),
  prune: query('prune ended transactions', 'DELETE FROM transactions WHERE ended_at IS NOT NULL AND ended_at <= ?'),
  nextSeq: query<{ seq: number }>('next staged seq', 'SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM transaction_writes WHERE transaction_id = ?'),
  insertWrite: query('stage write', `INSERT INTO transaction_writes (transaction_id, seq, op, token_id, sealed, enlisted_at, enlisted_by)
    VALUES (?, ?, ?, ?, ?, ?, ?)`),
  operations: query<OperationRow>('staged writes', 'SELECT * FROM transaction_writes WHERE transaction_id = ? ORDER BY seq'),
  end: query('end transaction', "UPDATE transactions SET state = @state, ended_at = @endedAt WHERE id = @id AND state = 'open'"),
  forget: query('forget staged writes', 'UPDATE transaction_writes SET sealed = NULL WHERE transaction_id = ?'),
  rollBackAll: query<TransactionRecord>(
    'roll back every open transaction',
    "UPDATE transactions SET state = 'rolled_back', ended_at = ? WHERE state = 'open' RETURNING *",
  ),
  // Without their sealed copies: the transactions have ended.
  endedOperationsOf: query<OperationRow>(
    'operations of ended transactions',
    `SELECT transaction_id, seq, op, token_id, NULL AS sealed, enlisted_at, enlisted_by FROM transaction_writes
    WHERE transaction_id IN (SELECT value FROM json_each(@ids)) ORDER BY transaction_id, seq`,
    { postgres: `SELECT transaction_id, seq, op, token_id, NULL AS sealed, enlisted_at, enlisted_by FROM transaction_writes
    WHERE transaction_id IN (SELECT json_array_elements_text(@ids::json)) ORDER BY transaction_id, seq` },
  ),
  deleteAll: query('delete all transactions', 'DELETE FROM transactions'),
  anyLive: query('any live transaction', "SELECT 1 FROM transactions WHERE state = 'open' AND expires_at > ? LIMIT 1"),
  holders: query<string>(
    'transactions holding a token',
    `SELECT DISTINCT w.transaction_id FROM transaction_writes w JOIN transactions t ON t.id = w.transaction_id
    WHERE w.token_id = @tokenId AND t.state = 'open' AND t.expires_at > @now`,
    { pluck: true },
  ),
};

const aad = (transactionId: string, seq: number) => `transaction:${transactionId}:${seq}`;

/**
 * The change feed's channel of transactions: each one created, staged in or ended is named on it, so that every
 * replica's workbench hears of a change made on any of them.
 */
export const TRANSACTION_CHANGES = 'transactions';

/** The stage unit: `writes` appended to an open transaction's staged writes, each sealed to its place. */
export function* stageWrites(sealer: Sealer, transactionId: string, writes: readonly TokenWrite[], enlistedBy: string): Unit<void> {
  let seq = (yield* tx.get(unitQueries.nextSeq, [transactionId]))!.seq;
  const now = new Date().toISOString();
  for (const write of writes) {
    const sealed = sealer.sealJson(write, aad(transactionId, seq));
    yield* tx.run(unitQueries.insertWrite, [transactionId, seq, write.op, tokenIdOf(write), sealed, now, enlistedBy]);
    seq += 1;
  }
  yield* tx.notify(TRANSACTION_CHANGES, transactionId);
}

/** Moves an open transaction to its final state and drops the sealed copies of its writes. False if not open. */
export function* endTransaction(id: string, state: Exclude<TransactionState, 'open'>, endedAt: string): Unit<boolean> {
  if ((yield* tx.run(unitQueries.end, { id, state, endedAt })).changes === 0) return false;
  yield* tx.run(unitQueries.forget, [id]);
  yield* tx.notify(TRANSACTION_CHANGES, id);
  return true;
}

/**
 * A transaction as a unit left it: its row, its operations (their data gone once it has ended) and, while it is open,
 * the live tokens it deletes as stored. All its view shows, so a listener builds the view without a read of its own.
 */
export interface TransactionSnapshot {
  record: TransactionRecord;
  operations: StagedOperation[];
  deleting: TokenRow[];
}

/** The transaction `id` as the unit running this leaves it (a view's snapshot), or undefined once gone. */
export function* snapshotOf(sealer: Sealer, id: string): Unit<TransactionSnapshot | undefined> {
  const record = yield* transactionSeen(id);
  if (!record) return undefined;
  const operations = (yield* tx.all(unitQueries.operations, [id])).map((row) => staged(sealer, row));
  const deleted = record.state === 'open' ? operations.flatMap((op) => (op.op === 'delete' ? [op.token_id] : [])) : [];
  return { record, operations, deleting: deleted.length > 0 ? yield* liveTokenRows(deleted) : [] };
}

/**
 * The wipe's part: every open transaction rolled back, then every transaction gone, its staged writes with it (their
 * foreign key cascades). Answers how many there were, and the open ones as they ended, which the manager tells once
 * committed (TransactionManager.wiped).
 */
export function* deleteAllTransactions(sealer: Sealer, endedAt: string): Unit<{ count: number; ended: TransactionSnapshot[] }> {
  const records = yield* tx.all(unitQueries.rollBackAll, [endedAt]);
  const ended = new Map(records.map((record): [string, TransactionSnapshot] => [record.id, { record, operations: [], deleting: [] }]));
  if (ended.size > 0) {
    for (const row of yield* tx.all(unitQueries.endedOperationsOf, { ids: idList([...ended.keys()]) })) ended.get(row.transaction_id)!.operations.push(staged(sealer, row));
  }
  return { count: (yield* tx.run(unitQueries.deleteAll)).changes, ended: [...ended.values()] };
}

function staged(sealer: Sealer, row: OperationRow): StagedOperation {
  return {
    token_id: row.token_id,
    op: row.op,
    enlisted_at: row.enlisted_at,
    enlisted_by: row.enlisted_by,
    write: row.sealed && sealer.openJson<TokenWrite>(row.sealed, aad(row.transaction_id, row.seq)),
  };
}

/** The writes to apply at commit, in enlisting order. */
export function* stagedWrites(sealer: Sealer, transactionId: string): Unit<TokenWrite[]> {
  const rows = yield* tx.all(unitQueries.operations, [transactionId]);
  return rows.flatMap((row) => {
    const { write } = staged(sealer, row);
    return write ? [write] : [];
  });
}

/** The open, unexpired transactions with a staged write on `tokenId` (they hold it). */
export function* holdersOf(tokenId: string, now: string): Unit<string[]> {
  return yield* tx.all(unitQueries.holders, { tokenId, now });
}

/** Whether any transaction could hold a lock now: one indexed probe, so writes skip lock lookups when none is. */
export function* anyLive(now: string): Unit<boolean> {
  return (yield* tx.get(unitQueries.anyLive, [now])) !== undefined;
}

/** A new transaction kept. */
export function* insertTransaction(record: TransactionRecord): Unit<void> {
  yield* tx.run(unitQueries.insert, record);
  yield* tx.notify(TRANSACTION_CHANGES, record.id);
}

/** The transaction of this id, or undefined; held until the unit ends where the database locks rows. */
export function* transactionOf(id: string): Unit<TransactionRecord | undefined> {
  return yield* tx.get(unitQueries.get, [id]);
}

/**
 * The transaction of this id as a read sees it, or undefined: without transactionOf's row lock, which would make a read
 * wait for whichever unit is staging in it or ending it.
 */
export function* transactionSeen(id: string): Unit<TransactionRecord | undefined> {
  return yield* tx.get(unitQueries.peek, [id]);
}

/**
 * The transaction is still open, or a 409: what is staged in it or commits it checks in its own unit, since another
 * request may have ended it after the request found it open. On PostgreSQL the row stays locked until the unit ends,
 * so a commit and a stage, or two commits, on two replicas take turns.
 */
export function* stillOpen(id: string): Unit<void> {
  if ((yield* transactionOf(id))?.state !== 'open') throw new ApiProblem(409, `Transaction ${id} is not open any more`);
}

/** Open transactions whose expiry is at or before `now`, soonest first. */
export function* dueTransactions(now: string): Unit<string[]> {
  return yield* tx.all(unitQueries.due, [now]);
}

/** The earliest expiry of an open transaction, or null when none is open. */
export function* nextExpiry(): Unit<string | null> {
  return (yield* tx.get(unitQueries.nextExpiry))?.at ?? null;
}

/** Deletes transactions that ended at or before `before` (their writes go with them); answers how many. */
export function* pruneTransactions(before: string): Unit<number> {
  return (yield* tx.run(unitQueries.prune, [before])).changes;
}

/** What the transaction manager and writer need of a store: the runner of the units above, and the sealer of staged writes. */
export interface TransactionUnits {
  /** Runs the transactional units, the vault's with them. */
  readonly units: AnyUnitRunner;
  readonly sealer: Sealer;
}

/**
 * Transactions and their staged writes as the workbench's panels read them, besides the units, over either runner:
 * `R` says whether its reads answer at once (SQLite's) or a Promise (PostgreSQL's).
 */
export interface TransactionStore<R extends AnyUnitRunner = UnitRunner> extends TransactionUnits {
  readonly units: R;
  get(id: string): Answer<R, TransactionRecord | undefined>;
  /** Up to `limit` kept transactions that `filter` lets through (all when absent), newest first, from just past `after`. */
  page(filter: TransactionFilter | undefined, limit: number, after?: PagePosition): Answer<R, TransactionRecord[]>;
  counts(): Answer<R, TransactionCounts>;
  operations(transactionId: string): Answer<R, StagedOperation[]>;
  /** The operations of several transactions in one query, by transaction id (none listed for one without any). */
  operationsOf(transactionIds: readonly string[]): Answer<R, Map<string, StagedOperation[]>>;
  /** The writes a commit would apply, in enlisting order. */
  stagedWrites(transactionId: string): Answer<R, TokenWrite[]>;
  /** The open, unexpired transactions, newest first. */
  liveIds(now: string): Answer<R, string[]>;
  /** The open, unexpired transactions with a staged write on this token id (they hold it). */
  holders(tokenId: string, now: string): Answer<R, string[]>;
}

// Each list walks its own index of migration 7 (`ended_at IS NOT NULL` is the ended one's own condition) from the
// cursor, newest first, and stops after a page.
const pageOf = (list: string, where: string, from: string) =>
  query<TransactionRecord>(`transactions page: ${list}${from ? ' after' : ''}`, `SELECT * FROM transactions WHERE ${where}${from} ORDER BY created_at DESC, id DESC LIMIT @limit`);
const pagesOf = (list: string, where: string) => ({
  first: pageOf(list, where, ''),
  after: pageOf(list, where, ' AND (created_at, id) < (@created_at, @id)'),
});
const panelQueries = {
  pages: { all: pagesOf('all', '1=1'), state: pagesOf('state', 'state = @state'), ended: pagesOf('ended', 'ended_at IS NOT NULL') },
  counts: query<{ state: TransactionState; n: number }>('transaction counts', 'SELECT state, COUNT(*) AS n FROM transactions GROUP BY state'),
  operationsOf: query<OperationRow>(
    'staged writes of transactions',
    'SELECT * FROM transaction_writes WHERE transaction_id IN (SELECT value FROM json_each(@ids)) ORDER BY transaction_id, seq',
    { postgres: 'SELECT * FROM transaction_writes WHERE transaction_id IN (SELECT json_array_elements_text(@ids::json)) ORDER BY transaction_id, seq' },
  ),
  live: query<string>('live transactions', "SELECT id FROM transactions WHERE state = 'open' AND expires_at > ? ORDER BY created_at DESC, id DESC", { pluck: true }),
};

/**
 * Persistence of transactions and their staged writes (migration 2), over either runner: every read is a read unit.
 * Staged writes carry token data, so each is sealed like a token row, bound to its transaction and position so a blob
 * cannot be replayed elsewhere.
 */
export class UnitTransactionStore<R extends AnyUnitRunner = AnyUnitRunner> implements TransactionStore<R> {
  constructor(
    /** Runs the transactional units, the vault's with them. */
    readonly units: R,
    readonly sealer: Sealer,
  ) {}

  private read<T>(start: () => Unit<T>): Answer<R, T> {
    return this.units.read(start) as Answer<R, T>;
  }

  get(id: string): Answer<R, TransactionRecord | undefined> {
    return this.read(() => transactionSeen(id));
  }

  /**
   * Up to `limit` kept transactions (ended ones stay until `prune`) that `filter` lets through (all when absent),
   * newest first, from just past `after`.
   */
  page(filter: TransactionFilter | undefined, limit: number, after?: PagePosition): Answer<R, TransactionRecord[]> {
    const pages = panelQueries.pages[filter === undefined ? 'all' : filter === 'ended' ? 'ended' : 'state'];
    return this.read(() => tx.all(after ? pages.after : pages.first, { state: filter, limit, ...after }));
  }

  /** How many are kept, in all and in each state: one pass over the per-state index. */
  counts(): Answer<R, TransactionCounts> {
    return answerOf<R, { state: TransactionState; n: number }[], TransactionCounts>(this.units.read(() => tx.all(panelQueries.counts)), (rows) => {
      const counts: TransactionCounts = { kept: 0, open: 0, committed: 0, rolled_back: 0, expired: 0 };
      for (const { state, n } of rows) {
        counts[state] = n;
        counts.kept += n;
      }
      return counts;
    });
  }

  operations(transactionId: string): Answer<R, StagedOperation[]> {
    return answerOf<R, OperationRow[], StagedOperation[]>(this.units.read(() => tx.all(unitQueries.operations, [transactionId])), (rows) =>
      rows.map((row) => staged(this.sealer, row)),
    );
  }

  /** The operations of several transactions in one query, by transaction id (none listed for one without any). */
  operationsOf(transactionIds: readonly string[]): Answer<R, Map<string, StagedOperation[]>> {
    return answerOf<R, OperationRow[], Map<string, StagedOperation[]>>(this.units.read(() => tx.all(panelQueries.operationsOf, { ids: idList(transactionIds) })), (rows) => {
      const byTransaction = new Map<string, StagedOperation[]>();
      for (const row of rows) {
        const operations = byTransaction.get(row.transaction_id) ?? [];
        operations.push(staged(this.sealer, row));
        byTransaction.set(row.transaction_id, operations);
      }
      return byTransaction;
    });
  }

  /** The writes a commit would apply, in enlisting order. */
  stagedWrites(transactionId: string): Answer<R, TokenWrite[]> {
    return this.read(() => stagedWrites(this.sealer, transactionId));
  }

  /** The open, unexpired transactions, newest first. */
  liveIds(now: string): Answer<R, string[]> {
    return this.read(() => tx.all(panelQueries.live, [now]));
  }

  /** The open, unexpired transactions with a staged write on this token id (they hold it). */
  holders(tokenId: string, now: string): Answer<R, string[]> {
    return this.read(() => holdersOf(tokenId, now));
  }
}
