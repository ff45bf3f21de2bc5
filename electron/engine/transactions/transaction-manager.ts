import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { z } from 'zod';
import type { Caller } from '../access/authenticator';
import { ApiProblem } from '../server/problem';
import { parseWith } from '../server/validation';
import type { Sealer } from '../storage/crypto';
import type { Unit } from '../storage/unit';
import { applyTokenWrites, idTaken, type TokenStore, type TokenWrite, type TokenWriting } from '../vault/token-store';
import { nowIso } from '../clock';
import { ExpiryScheduler } from './expiry-scheduler';
import {
  endTransaction,
  type EndedTransaction,
  stagedWrites,
  tokenIdOf,
  type TransactionRecord,
  type TransactionState,
  type TransactionStore,
} from './transaction-store';

/** Ended transactions stay listed (and answer 409 with their state) this long. */
const ENDED_RETENTION_MS = 24 * 60 * 60 * 1000;

const transactionId = z.uuid({ error: 'A transaction id is a UUID' }).transform((id) => id.toLowerCase());

/** The wire body of POST /transactions (docs/api.md, Transactions). */
export type TransactionCreated = Pick<TransactionRecord, 'id' | 'created_at' | 'created_by' | 'expires_at'>;

export interface TransactionChange {
  id: string;
  state: TransactionState;
  /** The transaction as it ended, when it is gone from the store already (a wipe's). */
  ended?: EndedTransaction;
}

export interface TransactionManagerEvents {
  /** A transaction was created, enlisted a write, or ended. */
  change: [TransactionChange];
}

/**
 * Locks keep staged writes valid, but a token can still expire (and be purged) under a staged update, or a seed can
 * take a staged id at start-up. Such a commit is refused with a 409 and the transaction stays open.
 */
function* checkApplicable(writes: readonly TokenWrite[]): Unit<void> {
  const exists = new Map<string, boolean>();
  for (const write of writes) {
    const id = tokenIdOf(write);
    const before = exists.get(id) ?? (yield* idTaken(id));
    if (write.op === 'create' && before) throw new ApiProblem(409, `Cannot commit: token id ${id} was taken outside the transaction`);
    if (write.op === 'update' && !before) throw new ApiProblem(409, `Cannot commit: token ${id} no longer exists`);
    exists.set(id, write.op !== 'delete');
  }
}

/**
 * The commit unit: every staged write applied and the transaction marked committed, all or nothing. Answers the writes
 * it applied. A transaction another commit or rollback ended first is not open any more: 409, and nothing is applied.
 */
function* commitUnit(sealer: Sealer, writing: TokenWriting, id: string): Unit<TokenWrite[]> {
  const writes = yield* stagedWrites(sealer, id);
  yield* checkApplicable(writes);
  yield* applyTokenWrites(writing, writes);
  if (!(yield* endTransaction(id, 'committed', nowIso()))) throw new ApiProblem(409, `Transaction ${id} is not open any more`);
  return writes;
}

/**
 * The life of a transaction (docs/api.md, Transactions): open → committed | rolled_back | expired. Commit applies
 * every staged write and marks the transaction committed in one SQLite transaction, so a crash leaves all or nothing.
 */
export class TransactionManager extends EventEmitter<TransactionManagerEvents> {
  private readonly scheduler: ExpiryScheduler;

  constructor(
    readonly store: TransactionStore,
    private readonly tokenStore: TokenStore,
    private readonly ttlSeconds: number,
  ) {
    super();
    this.scheduler = new ExpiryScheduler(
      () => store.nextExpiry(),
      () => this.expireDue(),
    );
  }

  /** Rolls back what expired while the service was stopped, forgets old ended transactions, arms the expiry timer. */
  start(): void {
    this.expireDue();
    this.prune();
    this.scheduler.reschedule();
  }

  stop(): void {
    this.scheduler.stop();
  }

  create(caller: Caller): TransactionCreated {
    const now = Date.now();
    const record: TransactionRecord = {
      id: randomUUID(),
      state: 'open',
      created_by: caller.application.id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.ttlSeconds * 1000).toISOString(),
      ended_at: null,
    };
    this.store.insert(record);
    this.scheduler.consider(now + this.ttlSeconds * 1000);
    this.emit('change', { id: record.id, state: 'open' });
    const { id, created_at, created_by, expires_at } = record;
    return { id, created_at, created_by, expires_at };
  }

  /**
   * The open transaction `rawId` names: 400 when it is not a UUID (`field` names where it came from), 404 when
   * unknown, 409 naming the state when it is not open. One whose expiry has just passed expires here, so the answer
   * never depends on how late the timer runs.
   */
  requireOpen(rawId: string, field: string): TransactionRecord {
    const id = parseWith(transactionId, rawId, field);
    const record = this.store.get(id);
    if (!record) throw new ApiProblem(404, `Transaction ${id} not found`);
    let { state } = record;
    if (state === 'open' && record.expires_at <= nowIso()) {
      this.end(id, 'expired');
      state = 'expired';
    }
    if (state !== 'open') throw new ApiProblem(409, `Transaction ${id} is not open: it is ${state}`);
    return record;
  }

  /** Returns only after SQLite has committed, so the 200 that follows is never premature. */
  commit(rawId: string): void {
    const { id } = this.requireOpen(rawId, 'id');
    const { sealer } = this.store;
    const { writing } = this.tokenStore;
    const writes = this.store.units.run(() => commitUnit(sealer, writing, id));
    this.tokenStore.settle(writes, true);
    this.emit('change', { id, state: 'committed' });
  }

  rollback(rawId: string): void {
    const { id } = this.requireOpen(rawId, 'id');
    this.end(id, 'rolled_back');
  }

  /** Tells listeners that an open transaction enlisted writes. */
  enlisted(id: string): void {
    this.emit('change', { id, state: 'open' });
  }

  /** After a wipe (deleteAllTransactions) has committed: the listeners hear of the open ones it rolled back. */
  wiped(ended: readonly EndedTransaction[]): void {
    for (const transaction of ended) this.emit('change', { id: transaction.record.id, state: 'rolled_back', ended: transaction });
    this.scheduler.reschedule();
  }

  expireDue(): void {
    for (const id of this.store.due(nowIso())) this.end(id, 'expired');
  }

  prune(): void {
    this.store.prune(new Date(Date.now() - ENDED_RETENTION_MS).toISOString());
  }

  private end(id: string, state: 'rolled_back' | 'expired'): void {
    if (this.store.end(id, state, nowIso())) this.emit('change', { id, state });
  }
}
