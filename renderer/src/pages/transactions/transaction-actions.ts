import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import { vaultRequest } from '../../api/vault-request';
import { useTransactionsStore } from '../../state/transactions-store';

/**
 * The page's three actions, each through the vault's own endpoint as the chosen application (docs/api.md,
 * Transactions), so they answer exactly as a client's would, 404 and 409 included. The live feed brings the change.
 */
export async function createTransaction(api: WorkbenchApi, applicationId: string): Promise<void> {
  const { body } = await vaultRequest(api, applicationId, 'POST', '/transactions');
  useTransactionsStore.getState().select((body as { id: string }).id);
}

export async function endTransaction(api: WorkbenchApi, applicationId: string, id: string, action: 'commit' | 'rollback'): Promise<void> {
  await vaultRequest(api, applicationId, 'POST', `/transactions/${encodeURIComponent(id)}/${action}`);
}
