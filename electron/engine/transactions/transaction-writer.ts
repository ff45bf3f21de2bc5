import { ApiProblem } from '../server/problem';
import { type AnyUnitRunner, tx, type Unit } from '../storage/unit';
import { applyTokenWrites, type TokenStore, type TokenWrite } from '../vault/token-store';
import { nowIso } from '../clock';
import type { TokenWriter, WriteContext, WriteTarget } from '../vault/token-service';
import { StagedView } from './staged-view';
import type { TransactionManager } from './transaction-manager';
import { anyLive, holdersOf, stagedWrites, stageWrites, stillOpen, tokenIdOf, type TransactionSnapshot, type TransactionUnits } from './transaction-store';

/**
 * A token changed or deleted in an open transaction is locked, and an id created in one is reserved: no other
 * transaction and no direct write may touch it until that transaction ends (409). Checked inside the unit that writes,
 * so the check and the write it guards are one transaction.
 */
function* checkLocks(writes: readonly TokenWrite[], transactionId: string | null): Unit<void> {
  // Over PostgreSQL two units on one token, on two replicas, would otherwise both find it free and both write.
  yield* tx.lock(writes.map((write) => `token:${tokenIdOf(write)}`));
  const now = nowIso();
  if (!(yield* anyLive(now))) return;
  for (const write of writes) {
    const tokenId = tokenIdOf(write);
    const held = (yield* holdersOf(tokenId, now)).some((holder) => holder !== transactionId);
    if (!held) continue;
    throw new ApiProblem(
      409,
      write.op === 'create' ? `Token id ${tokenId} is taken by another open transaction` : `Token ${tokenId} is locked by another open transaction`,
    );
  }
}

/**
 * The vault's writer once transactions exist: a write with PFX-TRANSACTION-ID is staged in that open transaction
 * (sealed, persisted) instead of applied, and every write, inside a transaction or not, respects the locks that
 * open transactions hold. The check and the write are one unit holding the tokens' locks, so check-then-write cannot
 * interleave, on one replica or several: of two racing writes on one token, exactly one wins.
 */
export class TransactionWriter implements TokenWriter {
  /** Each open transaction's view of the vault, built once from its staged writes and kept up to date. */
  private readonly views = new Map<string, StagedView<AnyUnitRunner>>();
  /** Writes without a transaction: applied at once, the locks checked in the same unit. */
  private readonly directly: WriteTarget;

  constructor(
    private readonly transactions: TransactionManager<TransactionUnits>,
    private readonly tokenStore: TokenStore<AnyUnitRunner>,
    /** How errors name the header (`BT-TRANSACTION-ID`). */
    private readonly headerName: string,
  ) {
    transactions.on('change', ({ id, state }) => {
      if (state !== 'open') this.views.delete(id);
    });
    this.directly = { reader: tokenStore, unit: (writes) => this.direct(writes), settle: (writes, landed) => tokenStore.settle(writes, landed) };
  }

  async target(context: WriteContext): Promise<WriteTarget> {
    if (context.transactionId === undefined) return this.directly;
    const { id } = await this.transactions.requireOpen(context.transactionId, this.headerName);
    const view = await this.viewOf(id);
    const { sealer } = this.transactions.store;
    const { seen } = this.transactions;
    const enlistedBy = context.caller.application.id;
    // What the unit that staged read of the transaction, for the listeners told once it has landed.
    let staged: TransactionSnapshot | undefined;
    return {
      reader: view,
      *unit(writes) {
        yield* stillOpen(id);
        yield* checkLocks(writes, id);
        yield* stageWrites(sealer, id, writes, enlistedBy);
        staged = yield* seen(id);
      },
      settle: (writes, landed) => {
        if (!landed) return;
        view.add(writes);
        this.transactions.enlisted(id, staged);
      },
    };
  }

  *direct(writes: readonly TokenWrite[]): Unit<void> {
    yield* checkLocks(writes, null);
    yield* applyTokenWrites(this.tokenStore.writing, writes);
  }

  private async viewOf(id: string): Promise<StagedView<AnyUnitRunner>> {
    const kept = this.views.get(id);
    if (kept) return kept;
    const { units, sealer } = this.transactions.store;
    const staged = await units.read(() => stagedWrites(sealer, id));
    // Another request may have built it while the writes were read: one view per transaction, or a write added to
    // one would be missing from the other.
    let view = this.views.get(id);
    if (!view) {
      view = new StagedView(this.tokenStore, staged);
      this.views.set(id, view);
    }
    return view;
  }
}
