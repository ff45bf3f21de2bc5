import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import type { TokenWriteResult } from '../../../../shared/workbench/token-contract';
import { useTokensStore } from '../../state/tokens-store';
import { actingApplication, writingTransaction } from './token-list-actions';

type WriteAction =
  | { action: 'create'; token: Record<string, unknown> }
  | { action: 'create_many'; tokens: Record<string, unknown>[] }
  | { action: 'update'; token_id: string; patch: Record<string, unknown> }
  | { action: 'delete'; token_id: string };

/** An intent's create or delete: no transaction takes them (the service enlists only token writes). */
type IntentAction = { action: 'create_intent'; intent: Record<string, unknown> } | { action: 'delete_intent'; intent_id: string };

/**
 * A write as the page's application, inside the transaction the page writes in: or, for a token an open transaction
 * created, inside that one (nowhere else does it exist yet).
 */
export async function writeAsPage(api: WorkbenchApi, write: WriteAction | IntentAction, stagedIn: string | null = null): Promise<TokenWriteResult> {
  const application = actingApplication();
  if (!application) throw new Error('There is no application to act as: create one (POST /applications with the management key).');
  if (write.action === 'create_intent' || write.action === 'delete_intent') return api.writeToken({ ...write, application_id: application.id });
  const transactionId = stagedIn ?? writingTransaction();
  return api.writeToken({ ...write, application_id: application.id, ...(transactionId && { transaction_id: transactionId }) });
}

/** A failed write in a sentence: the API's detail, and where to read more; for a missing permission, what to do. */
export function failureOf(result: TokenWriteResult): string {
  const advice = result.status === 403 ? ' Act as an application that holds it, or give it the permission in Settings, Applications.' : '';
  return `${result.problem?.detail ?? 'The write failed'}${result.status ? ` (${result.status})` : ''}.${advice}`;
}

/** A write's result once it succeeded; a failure is thrown, in a sentence, for the caller's call to show. */
export async function written(write: Promise<TokenWriteResult>): Promise<TokenWriteResult> {
  const result = await write;
  if (result.problem) throw new Error(failureOf(result));
  return result;
}

/**
 * Opens the token a create answered, saying whether it is new (and staged in the page's transaction until it
 * commits) or the existing token its deduplication found.
 */
export function showCreated(result: TokenWriteResult, made: string, found: string): void {
  const id = result.token_ids[0];
  const inside = result.deduplicated ? undefined : writingTransaction();
  const where = inside ? `, staged in transaction ${inside.slice(0, 8)} until it commits` : '';
  useTokensStore.getState().show({ kind: 'detail', id, stagedIn: inside ?? null }, `${result.deduplicated ? found : made} ${id}${where}.`);
}
