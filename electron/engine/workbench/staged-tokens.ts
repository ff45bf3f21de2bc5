import type { StagedOperation } from '../../../shared/workbench/token-contract';
import type { TransactionManager } from '../transactions/transaction-manager';
import { tokenIdOf } from '../transactions/transaction-store';
import { nowIso } from '../clock';
import type { StoredToken } from '../vault/token-store';

/** A token an open transaction would create, change or delete at commit, as it would be after (before, for a delete). */
export interface StagedToken {
  transaction_id: string;
  operation: StagedOperation['operation'];
  token: StoredToken;
}

/**
 * One open transaction's writes, replayed per token: created (and changed since) inside it, changed, or deleted. A
 * token created and deleted inside it is left out: the commit leaves no trace of it.
 */
function stagedIn(transactions: TransactionManager, transactionId: string, committed: (id: string) => StoredToken | undefined): StagedToken[] {
  const byId = new Map<string, { operation: StagedOperation['operation']; token: StoredToken | null }>();
  for (const write of transactions.store.stagedWrites(transactionId)) {
    const id = tokenIdOf(write);
    const createdInside = byId.get(id)?.operation === 'create';
    if (write.op !== 'delete') byId.set(id, { operation: createdInside ? 'create' : write.op, token: write.token });
    else if (createdInside) byId.delete(id);
    else byId.set(id, { operation: 'delete', token: null });
  }
  const staged: StagedToken[] = [];
  for (const [id, { operation, token }] of byId) {
    const shown = token ?? committed(id);
    if (shown) staged.push({ transaction_id: transactionId, operation, token: shown });
  }
  return staged;
}

/** What open transactions hold, newest transaction first; only `transactionId`'s when one is named. */
export function stagedTokens(transactions: TransactionManager, committed: (id: string) => StoredToken | undefined, transactionId?: string): StagedToken[] {
  const ids = transactions.store.liveIds(nowIso()).filter((id) => transactionId === undefined || id === transactionId);
  return ids.flatMap((id) => stagedIn(transactions, id, committed));
}

/** The staged write an open transaction holds on this token: the named one's, else that of any that holds it. */
export function stagedOperationOf(
  transactions: TransactionManager,
  committed: (id: string) => StoredToken | undefined,
  tokenId: string,
  transactionId?: string,
): StagedOperation | null {
  const holders = transactionId === undefined ? transactions.store.holders(tokenId, nowIso()) : [transactionId];
  for (const holder of holders) {
    const staged = stagedTokens(transactions, committed, holder).find((candidate) => candidate.token.id === tokenId);
    if (staged) return { transaction_id: staged.transaction_id, operation: staged.operation };
  }
  return null;
}
