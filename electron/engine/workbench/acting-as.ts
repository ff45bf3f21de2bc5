import type { Caller } from '../access/authenticator';
import { ApiProblem } from '../server/problem';
import { StagedView } from '../transactions/staged-view';
import type { AnyUnitRunner } from '../storage/unit';
import type { TransactionManager } from '../transactions/transaction-manager';
import type { TransactionStore } from '../transactions/transaction-store';
import type { TokenQueries } from '../vault/token-queries';
import type { TokenService } from '../vault/token-service';
import type { StoredToken } from '../vault/token-store';

/**
 * The vault as the Tokens page reads it: its tokens, its searches, its transactions, and the applications to act as;
 * over either database, so its reads are awaited.
 */
export interface WorkbenchVault {
  tokens: TokenService<AnyUnitRunner>;
  queries: TokenQueries;
  transactions: TransactionManager<TransactionStore<AnyUnitRunner>>;
  /** The application as a caller, with its access rules; undefined when there is none with that id. */
  callerFor(applicationId: string): Caller | undefined;
}

/** The application the page acts as, as a caller of the vault: its access rules decide what the page sees. */
export function actingAs(vault: WorkbenchVault, applicationId: string): Caller {
  const caller = vault.callerFor(applicationId);
  if (!caller) throw new ApiProblem(404, `Application ${applicationId} not found`);
  return caller;
}

/** A transaction by id, which must exist; its state decides whether its writes are still staged. */
export async function requireTransaction(vault: WorkbenchVault, transactionId: string) {
  const record = await vault.transactions.store.get(transactionId);
  if (!record) throw new ApiProblem(404, `Transaction ${transactionId} not found`);
  return record;
}

/**
 * A live token as the vault holds it, or as an open transaction would leave it when one is named (its staged
 * creates and changes included); a transaction that has ended shows the vault as it is. 404 when there is none.
 */
export async function tokenIn(vault: WorkbenchVault, tokenId: string, transactionId?: string): Promise<StoredToken> {
  const store = vault.tokens.store;
  const record = transactionId === undefined ? undefined : await requireTransaction(vault, transactionId);
  const reader = record?.state === 'open' ? new StagedView(store, await vault.transactions.store.stagedWrites(record.id)) : store;
  const token = await reader.get(tokenId);
  if (!token) throw new ApiProblem(404, `Token ${tokenId} not found`);
  return token;
}
