import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import type { TokenWriteResult } from '../../../../shared/workbench/token-contract';
import { actingApplication, writingTransaction } from './token-list-actions';

type WriteAction =
  | { action: 'create'; token: Record<string, unknown> }
  | { action: 'create_many'; tokens: Record<string, unknown>[] }
  | { action: 'update'; token_id: string; patch: Record<string, unknown> }
  | { action: 'delete'; token_id: string };

/**
 * A write as the page's application, inside the transaction the page writes in: or, for a token an open transaction
 * created, inside that one (nowhere else does it exist yet).
 */
export async function writeAsPage(api: WorkbenchApi, write: WriteAction, stagedIn: string | null = null): Promise<TokenWriteResult> {
  const application = actingApplication();
  if (!application) throw new Error('There is no application to act as: create one (POST /applications with the management key).');
  const transactionId = stagedIn ?? writingTransaction();
  return api.writeToken({ ...write, application_id: application.id, ...(transactionId && { transaction_id: transactionId }) });
}

/** A failed write in a sentence: the API's detail, and where to read more. */
export const failureOf = (result: TokenWriteResult) =>
  `${result.problem?.detail ?? 'The write failed'}${result.status ? ` (${result.status})` : ''}.`;
