import type { StagedOperation } from '../../../shared/workbench/token-contract';
import type { AnyUnitRunner } from '../storage/unit';
import type { TransactionManager } from '../transactions/transaction-manager';
import { tokenIdOf, type TransactionStore } from '../transactions/transaction-store';
import { nowIso } from '../clock';
import type { StoredToken } from '../vault/token-store';

/** A token an open transaction would create, change or delete at commit, as it would be after (before, for a delete). */
export interface StagedToken {
  transaction_id: string;
  operation: StagedOperation['operation'];
  token: StoredToken;
}

/** The transactions over either database: their reads are awaited. */
type Transactions = TransactionManager<TransactionStore<AnyUnitRunner>>;
/** A committed token by id, as the vault's store answers it. */
type Committed = (id: string) => StoredToken | undefined | Promise<StoredToken | undefined>;

/**
 * One open transaction's writes, replayed per token: created (and changed since) inside it, changed, or deleted. A
 * token created and deleted inside it is left out: the commit leaves no trace of it.
 */
async function stagedIn(transactions: Transactions, transactionId: string, committed: Committed): Promise<StagedToken[]> {
  const byId = new Map<string, { operation: StagedOperation['operation']; token: StoredToken | null }>();
  for (const write of await transactions.store.stagedWrites(transactionId)) {
    const id = tokenIdOf(write);
    const createdInside = byId.get(id)?.operation === 'create';
    if (write.op !== 'delete') byId.set(id, { operation: createdInside ? 'create' : write.op, token: write.token });
    else if (createdInside) byId.delete(id);
    else byId.set(id, { operation: 'delete', token: null });
  }
  const staged: StagedToken[] = [];
  for (const [id, { operation, token }] of byId) {
    const shown = token ?? (await committed(id));
    if (shown) staged.push({ transaction_id: transactionId, operation, token: shown });
  }
  return staged;
}

/** What open transactions hold, newest transaction first; only `transactionId`'s when one is named. */
export async function stagedTokens(transactions: Transactions, committed: Committed, transactionId?: string): Promise<StagedToken[]> {
  const ids = (await transactions.store.liveIds(nowIso())).filter((id) => transactionId === undefined || id === transactionId);
  const staged: StagedToken[] = [];
  for (const id of ids) staged.push(...(await stagedIn(transactions, id, committed)));
  return staged;
}

/** The staged write an open transaction holds on this token: the named one's, else that of any that holds it. */
export async function stagedOperationOf(transactions: Transactions, committed: Committed, tokenId: string, transactionId?: string): Promise<StagedOperation | null> {
  const holders = transactionId === undefined ? await transactions.store.holders(tokenId, nowIso()) : [transactionId];
  for (const holder of holders) {
    const staged = (await stagedTokens(transactions, committed, holder)).find((candidate) => candidate.token.id === tokenId);
    if (staged) return { transaction_id: staged.transaction_id, operation: staged.operation };
  }
  return null;
}
