import { randomUUID } from 'node:crypto';
import type { ProxyDetails } from '../../../shared/workbench/contract';
import type { PageId } from '../../../shared/workbench/pages';
import type { RevealRecord } from '../../../shared/workbench/token-contract';
import type { RequestLog, RequestLogEntry } from '../history/request-log';
import { ApiProblem } from '../server/problem';
import { tokenIn, type WorkbenchVault } from './acting-as';

/**
 * The workbench's explicit reveals, each recorded in history as the user's own action (kind `workbench`, method
 * REVEAL, with the page it was done on): what was revealed, by id, and whether it could be; never the value. A
 * failed attempt is recorded too.
 */
export interface Reveals {
  token(tokenId: string, transactionId?: string, page?: PageId): Promise<{ data: unknown }>;
  outbound(entryId: string, page?: PageId): Promise<{ detokenized_body: string }>;
}

const statusOf = (error: unknown) => (error instanceof ApiProblem ? error.status : 500);

export function createReveals(
  history: RequestLog,
  vault: WorkbenchVault,
  /** The outbound body of a proxied request with its plaintext (proxy-history's revealedOutbound). */
  revealOutbound: (entry: RequestLogEntry | undefined) => string,
): Reveals {
  async function recorded<T>(path: string, reveal: RevealRecord, page: PageId | undefined, run: () => T | Promise<T>, transactionId?: string): Promise<T> {
    const started = performance.now();
    const record = (status: number) =>
      history.record({
        kind: 'workbench',
        method: 'REVEAL',
        path,
        status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        application_id: null,
        workbench_page: page ?? null,
        // Its own trace id, as every request the service answers has one, so the audit trail can name each reveal.
        trace_id: randomUUID(),
        transaction_id: transactionId ?? null,
        request_headers: [],
        details: { reveal },
      });
    try {
      const revealed = await run();
      record(200);
      return revealed;
    } catch (error) {
      record(statusOf(error));
      throw error;
    }
  }

  return {
    token: (tokenId, transactionId, page) =>
      recorded(`/tokens/${tokenId}`, { target: 'token', token_id: tokenId }, page, () => ({ data: tokenIn(vault, tokenId, transactionId).data }), transactionId),
    async outbound(entryId, page) {
      const entry = await history.get(entryId);
      const tokenIds = (entry?.details as ProxyDetails | undefined)?.expressions?.token_ids ?? [];
      const reveal: RevealRecord = { target: 'outbound', entry_id: entryId, token_ids: [...tokenIds] };
      return recorded(entry?.path ?? `/history/${entryId}`, reveal, page, () => ({ detokenized_body: revealOutbound(entry) }));
    },
  };
}
