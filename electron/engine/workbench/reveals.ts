import type { ProxyDetails } from '../../../shared/workbench/contract';
import type { PageId } from '../../../shared/workbench/pages';
import type { RevealRecord } from '../../../shared/workbench/token-contract';
import type { RequestLog, RequestLogEntry } from '../history/request-log';
import type { SecretStore } from '../secrets/secret-store';
import { tokenIn, type WorkbenchVault } from './acting-as';
import type { RecordAction } from './workbench-actions';

/**
 * The workbench's explicit reveals, each recorded in history as the user's own action (kind `workbench`, method
 * REVEAL, with the page it was done on): what was revealed, by id, and whether it could be; never the value. A
 * failed attempt is recorded too.
 */
export interface Reveals {
  token(tokenId: string, transactionId?: string, page?: PageId): Promise<{ data: unknown }>;
  outbound(entryId: string, page?: PageId): Promise<{ detokenized_body: string }>;
  secret(name: string, page?: PageId): Promise<{ value: string }>;
}

export function createReveals(
  record: RecordAction,
  history: RequestLog,
  vault: WorkbenchVault,
  /** The outbound body of a proxied request with its plaintext (proxy-history's revealedOutbound). */
  revealOutbound: (entry: RequestLogEntry | undefined) => string,
  secrets: SecretStore,
): Reveals {
  const recorded = <T>(path: string, reveal: RevealRecord, page: PageId | undefined, run: () => T, transactionId?: string) =>
    record(page, run, () => ({ method: 'REVEAL', path, details: { reveal } }), transactionId);

  return {
    token: (tokenId, transactionId, page) =>
      recorded(`/tokens/${tokenId}`, { target: 'token', token_id: tokenId }, page, () => ({ data: tokenIn(vault, tokenId, transactionId).data }), transactionId),
    async outbound(entryId, page) {
      const entry = await history.get(entryId);
      const tokenIds = (entry?.details as ProxyDetails | undefined)?.expressions?.token_ids ?? [];
      const reveal: RevealRecord = { target: 'outbound', entry_id: entryId, token_ids: [...tokenIds] };
      return recorded(entry?.path ?? `/history/${entryId}`, reveal, page, () => ({ detokenized_body: revealOutbound(entry) }));
    },
    secret: (name, page) => recorded(`/secrets/${name}`, { target: 'secret', name }, page, () => ({ value: secrets.reveal(name) })),
  };
}
