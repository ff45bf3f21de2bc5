import type { Sealer } from '../storage/crypto';
import type { Db } from '../storage/database';
import type { TokenWrite } from '../vault/token-store';

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
  seq: number;
  op: TokenWrite['op'];
  token_id: string;
  sealed: Buffer | null;
  enlisted_at: string;
  enlisted_by: string | null;
}

export const tokenIdOf = (write: TokenWrite): string => (write.op === 'delete' ? write.id : write.token.id);

/**
 * Persistence of transactions and their staged writes (migration 2). Staged writes carry token data, so each is
 * sealed like a token row, bound to its transaction and position so a blob cannot be replayed elsewhere.
 */
export class TransactionStore {
  private readonly stmt;
  readonly stage: (transactionId: string, writes: readonly TokenWrite[], enlistedBy: string) => void;
  /** Moves an open transaction to its final state and drops the sealed copies of its writes. False if not open. */
  readonly end: (id: string, state: Exclude<TransactionState, 'open'>, endedAt: string) => boolean;

  constructor(
    readonly db: Db,
    private readonly sealer: Sealer,
  ) {
    this.stmt = {
      insert: db.prepare(`INSERT INTO transactions (id, state, created_by, created_at, expires_at, ended_at)
        VALUES (@id, @state, @created_by, @created_at, @expires_at, @ended_at)`),
      get: db.prepare('SELECT * FROM transactions WHERE id = ?'),
      list: db.prepare('SELECT * FROM transactions ORDER BY created_at DESC, id'),
      operations: db.prepare('SELECT * FROM transaction_writes WHERE transaction_id = ? ORDER BY seq'),
      nextSeq: db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM transaction_writes WHERE transaction_id = ?'),
      insertWrite: db.prepare(`INSERT INTO transaction_writes (transaction_id, seq, op, token_id, sealed, enlisted_at, enlisted_by)
        VALUES (?, ?, ?, ?, ?, ?, ?)`),
      holders: db.prepare(`SELECT DISTINCT w.transaction_id FROM transaction_writes w JOIN transactions t ON t.id = w.transaction_id
        WHERE w.token_id = @tokenId AND t.state = 'open' AND t.expires_at > @now`).pluck(),
      end: db.prepare("UPDATE transactions SET state = @state, ended_at = @endedAt WHERE id = @id AND state = 'open'"),
      forget: db.prepare('UPDATE transaction_writes SET sealed = NULL WHERE transaction_id = ?'),
      due: db.prepare("SELECT id FROM transactions WHERE state = 'open' AND expires_at <= ? ORDER BY expires_at"),
      nextExpiry: db.prepare("SELECT MIN(expires_at) AS at FROM transactions WHERE state = 'open'"),
      anyLive: db.prepare("SELECT 1 FROM transactions WHERE state = 'open' AND expires_at > ? LIMIT 1"),
      prune: db.prepare('DELETE FROM transactions WHERE ended_at IS NOT NULL AND ended_at <= ?'),
    };
    this.stage = db.transaction((transactionId: string, writes: readonly TokenWrite[], enlistedBy: string) => {
      let seq = (this.stmt.nextSeq.get(transactionId) as { seq: number }).seq;
      const now = new Date().toISOString();
      for (const write of writes) {
        const sealed = this.sealer.sealJson(write, this.aad(transactionId, seq));
        this.stmt.insertWrite.run(transactionId, seq, write.op, tokenIdOf(write), sealed, now, enlistedBy);
        seq += 1;
      }
    });
    this.end = db.transaction((id: string, state: Exclude<TransactionState, 'open'>, endedAt: string) => {
      if (this.stmt.end.run({ id, state, endedAt }).changes === 0) return false;
      this.stmt.forget.run(id);
      return true;
    });
  }

  private aad(transactionId: string, seq: number): string {
    return `transaction:${transactionId}:${seq}`;
  }

  insert(record: TransactionRecord): void {
    this.stmt.insert.run(record);
  }

  get(id: string): TransactionRecord | undefined {
    return this.stmt.get.get(id) as TransactionRecord | undefined;
  }

  /** Newest first; ended transactions stay until `prune`. */
  list(): TransactionRecord[] {
    return this.stmt.list.all() as TransactionRecord[];
  }

  operations(transactionId: string): StagedOperation[] {
    return (this.stmt.operations.all(transactionId) as OperationRow[]).map((row) => ({
      token_id: row.token_id,
      op: row.op,
      enlisted_at: row.enlisted_at,
      enlisted_by: row.enlisted_by,
      write: row.sealed && this.sealer.openJson<TokenWrite>(row.sealed, this.aad(transactionId, row.seq)),
    }));
  }

  /** The writes to apply at commit, in enlisting order. */
  stagedWrites(transactionId: string): TokenWrite[] {
    return this.operations(transactionId).flatMap((o) => (o.write ? [o.write] : []));
  }

  /** The open, unexpired transactions with a staged write on this token id (they hold it). */
  /** Whether any transaction could hold a lock now: one indexed probe, so writes skip lock lookups when none is. */
  anyLive(now: string): boolean {
    return this.stmt.anyLive.get(now) !== undefined;
  }

  holders(tokenId: string, now: string): string[] {
    return this.stmt.holders.all({ tokenId, now }) as string[];
  }

  /** Open transactions whose expiry is at or before `now`. */
  due(now: string): string[] {
    return (this.stmt.due.all(now) as { id: string }[]).map((r) => r.id);
  }

  nextExpiry(): string | null {
    return (this.stmt.nextExpiry.get() as { at: string | null }).at;
  }

  /** Deletes transactions that ended at or before `before` (their writes go with them). */
  prune(before: string): number {
    return this.stmt.prune.run(before).changes;
  }
}
