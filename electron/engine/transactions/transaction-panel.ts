import { afterRun, type AnyUnitRunner } from '../storage/unit';
import type { TokenService } from '../vault/token-service';
import type { StoredToken, TokenWrite } from '../vault/token-store';
import type { CommitEffect, TransactionCounts, TransactionPage, TransactionQuery, TransactionView } from '../../../shared/workbench/transaction-contract';
import { decodeCursor, encodeCursor } from '../server/page-cursor';
import type { StagedOperation, TransactionRecord, TransactionSnapshot, TransactionStore } from './transaction-store';

type Lock = TransactionView['locks'][number];

/** Finds a token a transaction deletes, at once or once read. */
type TokenLookup = (id: string) => StoredToken | undefined | Promise<StoredToken | undefined>;

/** Per token id, in the order the transaction first touched it: its first and its last staged write. */
function firstAndLast(operations: readonly StagedOperation[]): Map<string, { first: StagedOperation; last: StagedOperation }> {
  const touched = new Map<string, { first: StagedOperation; last: StagedOperation }>();
  for (const op of operations) {
    const seen = touched.get(op.token_id);
    if (seen) seen.last = op;
    else touched.set(op.token_id, { first: op, last: op });
  }
  return touched;
}

/** The tokens an open transaction holds, as TransactionWriter enforces them: an id it created is reserved, any other locked. */
export function locksOf(operations: readonly StagedOperation[]): Lock[] {
  return [...firstAndLast(operations)].map(([token_id, { first }]) => ({ token_id, kind: first.op === 'create' ? 'reserved' : 'locked' }));
}

/**
 * What a commit would show other requests, per token: its writes replayed in order. A token created and deleted inside
 * leaves nothing; one that existed before and is deleted inside disappears; any other is created or updated with its
 * last staged state (`write`, whose data the caller masks).
 */
export function commitEffectsOf(operations: readonly StagedOperation[]): { token_id: string; effect: CommitEffect['effect']; last: StagedOperation }[] {
  return [...firstAndLast(operations)].flatMap(([token_id, { first, last }]) => {
    const existedBefore = first.op !== 'create';
    if (last.op === 'delete' && !existedBefore) return [];
    const effect: CommitEffect['effect'] = last.op === 'delete' ? 'deleted' : existedBefore ? 'updated' : 'created';
    return [{ token_id, effect, last }];
  });
}

/**
 * The read side for the workbench: kept transactions a page at a time, each with its state, time left, operations,
 * the locks it holds and what its commit would make visible; token data under its mask (for a delete, the token being
 * deleted), never plaintext, and null once the transaction has ended. Over either runner: its reads are awaited.
 */
export class TransactionPanel {
  constructor(
    private readonly store: TransactionStore<AnyUnitRunner>,
    private readonly tokens: TokenService<AnyUnitRunner>,
  ) {}

  /**
   * Newest first, the page `query` asks for: its views built from one read of their operations, so a page costs the
   * same however many transactions are kept; the cursor of the next page, and the counts.
   */
  async page({ state, limit, before }: TransactionQuery): Promise<TransactionPage> {
    const records = await this.store.page(state, limit + 1, before === undefined ? undefined : decodeCursor(before, 'before'));
    const listed = records.slice(0, limit);
    const operations = await this.store.operationsOf(listed.map((record) => record.id));
    return {
      transactions: await Promise.all(listed.map(async (record) => this.view(record, operations.get(record.id) ?? []))),
      next: records.length > limit ? encodeCursor(listed[limit - 1]) : null,
      counts: await this.store.counts(),
    };
  }

  counts(): TransactionCounts | Promise<TransactionCounts> {
    return this.store.counts();
  }

  /** At once over SQLite, where the engine's listeners hear each change as it happens; a Promise over PostgreSQL. */
  get(id: string): TransactionView | undefined | Promise<TransactionView | undefined> {
    const record = this.store.get(id);
    const operations = this.store.operations(id);
    if (record instanceof Promise || operations instanceof Promise) return Promise.all([record, operations]).then(([found, staged]) => found && this.view(found, staged));
    return record && this.view(record, operations);
  }

  /** The view of a transaction as the unit that changed it read it (snapshotOf): at once, without a read of its own. */
  shown({ record, operations, deleting }: TransactionSnapshot): TransactionView {
    const deleted = new Map(deleting.map((row) => [row.id, this.tokens.store.hydrate(row)]));
    // Its tokens are looked up in the snapshot, never read, so the view is built at once.
    return this.view(record, operations, (id) => deleted.get(id)) as TransactionView;
  }

  /**
   * At once unless a deleted token had to be read and its read answered a Promise; `tokenOf` finds a token being
   * deleted (the vault's, read now, unless given).
   */
  view(
    record: TransactionRecord,
    operations: readonly StagedOperation[],
    tokenOf: TokenLookup = (id) => this.tokens.store.get(id),
  ): TransactionView | Promise<TransactionView> {
    const open = record.state === 'open';
    const timeLeft = open ? Math.max(0, Date.parse(record.expires_at) - Date.now()) : 0;
    const effects = open ? commitEffectsOf(operations) : [];
    const mask = (write: TokenWrite | null, tokenId: string) => this.maskedData(write, tokenId, tokenOf);
    const data = [...operations.map((op) => mask(op.write, op.token_id)), ...effects.map(({ token_id, last }) => mask(last.write, token_id))];
    const build = (masked: unknown[]): TransactionView => ({
      ...record,
      time_left_ms: timeLeft,
      operations: operations.map((op, i) => ({
        token_id: op.token_id,
        operation: op.op,
        enlisted_at: op.enlisted_at,
        application_id: op.enlisted_by,
        data: masked[i],
      })),
      locks: open ? locksOf(operations) : [],
      on_commit: effects.map(({ token_id, effect }, i) => ({ token_id, effect, data: masked[operations.length + i] })),
    });
    return data.some((masked) => masked instanceof Promise) ? Promise.all(data).then(build) : build(data);
  }

  /** A staged write's data under its mask (for a delete, the token being deleted, as `tokenOf` finds it). */
  private maskedData(write: TokenWrite | null, tokenId: string, tokenOf: TokenLookup): unknown {
    if (!write) return null;
    const masked = (token: StoredToken | undefined) => (token ? (this.tokens.view(token, 'mask').data ?? null) : null);
    return write.op === 'delete' ? afterRun(tokenOf(tokenId), masked) : masked(write.token);
  }
}
