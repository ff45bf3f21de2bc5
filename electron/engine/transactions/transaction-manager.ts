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
  dueTransactions,
  endTransaction,
  insertTransaction,
  nextExpiry,
  pruneTransactions,
  snapshotOf,
  stagedWrites,
  stillOpen,
  tokenIdOf,
  transactionSeen,
  type TransactionRecord,
  type TransactionSnapshot,
  type TransactionState,
  type TransactionStore,
  type TransactionUnits,
} from './transaction-store';

/** Ended transactions stay listed (and answer 409 with their state) this long. */
const ENDED_RETENTION_MS = 24 * 60 * 60 * 1000;

const transactionId = z.uuid({ error: 'A transaction id is a UUID' }).transform((id) => id.toLowerCase());

/** The wire body of POST /transactions (docs/api.md, Transactions). */
export type TransactionCreated = Pick<TransactionRecord, 'id' | 'created_at' | 'created_by' | 'expires_at'>;

export interface TransactionChange {
  id: string;
  state: TransactionState;
  /**
   * The transaction as the change left it, read in the change's own unit while views are wanted (`showViews`), so a
   * listener shows exactly that state, whenever the answer to the change goes out; absent otherwise.
   */
  seen?: TransactionSnapshot;
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
 * it applied, and what `seen` reads of the transaction it committed. A transaction another commit or rollback ended
 * first is not open any more: 409, and nothing is applied.
 */
function* commitUnit(
  sealer: Sealer,
  writing: TokenWriting,
  id: string,
  endings: Endings,
  seen: (id: string) => Unit<TransactionSnapshot | undefined>,
): Unit<{ writes: TokenWrite[]; seen: TransactionSnapshot | undefined }> {
  yield* stillOpen(id);
  const writes = yield* stagedWrites(sealer, id);
  yield* checkApplicable(writes);
  yield* applyTokenWrites(writing, writes);
  yield* endTransaction(id, 'committed', nowIso());
  yield* endings(id, true);
  return { writes, seen: yield* seen(id) };
}

/** What else a transaction's end settles in its unit (the token intents its conversions held). */
export type Endings = (id: string, committed: boolean) => Unit<void>;

function* nothing(): Unit<undefined> {}

/**
 * The life of a transaction (docs/api.md, Transactions): open → committed | rolled_back | expired. Commit applies
 * every staged write and marks the transaction committed in one database transaction, so a crash leaves all or nothing.
 * It reads and writes only through units, so it runs over either driver; `store` is also what the workbench reads.
 */
export class TransactionManager<Store extends TransactionUnits = TransactionStore> extends EventEmitter<TransactionManagerEvents> {
  private readonly scheduler: ExpiryScheduler;
  private endings: Endings = nothing;
  private showing = false;

  constructor(
    readonly store: Store,
    /** What the commit needs of the vault: its write unit's parts, and the settling of what landed. */
    private readonly tokenStore: Pick<TokenStore, 'writing' | 'settle'>,
    private readonly ttlSeconds: number,
  ) {
    super();
    this.scheduler = new ExpiryScheduler(
      () => store.units.read(nextExpiry),
      () => this.expireDue(),
    );
  }

  /** Settles `endings` in the unit of every commit, rollback and expiry from now on. */
  useEndings(endings: Endings): void {
    this.endings = endings;
  }

  /**
   * Whether each change's unit reads the transaction as it leaves it (TransactionChange.seen): while someone shows
   * the views, so that over PostgreSQL, whose reads come later, no listener sees a state other than the one made.
   */
  showViews(showing: boolean): void {
    this.showing = showing;
  }

  /** The transaction as the unit running this leaves it, while views are wanted (`showViews`); else undefined. */
  readonly seen = (id: string): Unit<TransactionSnapshot | undefined> => (this.showing ? snapshotOf(this.store.sealer, id) : nothing());

  /** Rolls back what expired while the service was stopped, forgets old ended transactions, arms the expiry timer. */
  async start(): Promise<void> {
    await this.expireDue();
    await this.prune();
    await this.scheduler.reschedule();
  }

  stop(): void {
    this.scheduler.stop();
  }

  async create(caller: Caller): Promise<TransactionCreated> {
    const now = Date.now();
    const record: TransactionRecord = {
      id: randomUUID(),
      state: 'open',
      created_by: caller.application.id,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.ttlSeconds * 1000).toISOString(),
      ended_at: null,
    };
    await this.store.units.run(() => insertTransaction(record));
    this.scheduler.consider(now + this.ttlSeconds * 1000);
    this.emit('change', { id: record.id, state: 'open', seen: { record, operations: [], deleting: [] } });
    const { id, created_at, created_by, expires_at } = record;
    return { id, created_at, created_by, expires_at };
  }

  /**
   * The open transaction `rawId` names: 400 when it is not a UUID (`field` names where it came from), 404 when
   * unknown, 409 naming the state when it is not open. One whose expiry has just passed expires here, so the answer
   * never depends on how late the timer runs. What is done in it afterwards checks again that it is open, in its own
   * unit: another request may end it meanwhile.
   */
  async requireOpen(rawId: string, field: string): Promise<TransactionRecord> {
    const id = parseWith(transactionId, rawId, field);
    const record = await this.store.units.read(() => transactionSeen(id));
    if (!record) throw new ApiProblem(404, `Transaction ${id} not found`);
    let { state } = record;
    if (state === 'open' && record.expires_at <= nowIso()) {
      await this.end(id, 'expired');
      state = 'expired';
    }
    if (state !== 'open') throw new ApiProblem(409, `Transaction ${id} is not open: it is ${state}`);
    return record;
  }

  /** Returns only after the database has committed, so the 200 that follows is never premature. */
  async commit(rawId: string): Promise<void> {
    const { id } = await this.requireOpen(rawId, 'id');
    const { sealer } = this.store;
    const { writing } = this.tokenStore;
    const { endings, seen } = this;
    const { writes, seen: committed } = await this.store.units.run(() => commitUnit(sealer, writing, id, endings, seen));
    this.tokenStore.settle(writes, true);
    this.emit('change', { id, state: 'committed', seen: committed });
  }

  async rollback(rawId: string): Promise<void> {
    const { id } = await this.requireOpen(rawId, 'id');
    if (!(await this.end(id, 'rolled_back'))) throw new ApiProblem(409, `Transaction ${id} is not open any more`);
  }

  /** Tells listeners that an open transaction enlisted writes, as its unit left it (`seen`, while views are wanted). */
  enlisted(id: string, seen: TransactionSnapshot | undefined): void {
    this.emit('change', { id, state: 'open', seen });
  }

  /** After a wipe (deleteAllTransactions) has committed: the listeners hear of the open ones it rolled back. */
  wiped(ended: readonly TransactionSnapshot[]): void {
    for (const transaction of ended) this.emit('change', { id: transaction.record.id, state: 'rolled_back', seen: transaction });
    void this.scheduler.reschedule();
  }

  async expireDue(): Promise<void> {
    for (const id of await this.store.units.read(() => dueTransactions(nowIso()))) await this.end(id, 'expired');
  }

  async prune(): Promise<void> {
    const before = new Date(Date.now() - ENDED_RETENTION_MS).toISOString();
    await this.store.units.run(() => pruneTransactions(before));
  }

  /** Ends an open transaction in a unit of its own; false when another request ended it first. */
  private async end(id: string, state: 'rolled_back' | 'expired'): Promise<boolean> {
    const { endings, seen } = this;
    const ended = await this.store.units.run(function* () {
      if (!(yield* endTransaction(id, state, nowIso()))) return null;
      yield* endings(id, false);
      return { seen: yield* seen(id) };
    });
    if (ended) this.emit('change', { id, state, seen: ended.seen });
    return ended !== null;
  }
}
