import type { ProxyDetails } from '../../../shared/workbench/contract';
import type { RevealRecord } from '../../../shared/workbench/token-contract';
import type { RequestLog, RequestLogEntry } from '../history/request-log';
import { ApiProblem } from '../server/problem';
import { tokenIn, type WorkbenchVault } from './acting-as';

/**
 * The workbench's explicit reveals, each recorded in history as the user's own action (kind `workbench`, method
 * REVEAL): what was revealed, by id, and whether it could be; never the value. A failed attempt is recorded too.
 */
export interface Reveals {
  token(tokenId: string, transactionId?: string): Promise<{ data: unknown }>;
  outbound(entryId: string): Promise<{ detokenized_body: string }>;
}

const statusOf = (error: unknown) => (error instanceof ApiProblem ? error.status : 500);

export function createReveals(
  history: RequestLog,
  vault: WorkbenchVault,
  /** The outbound body of a proxied request with its plaintext (proxy-history's revealedOutbound). */
  revealOutbound: (entry: RequestLogEntry | undefined) => string,
): Reveals {
  async function recorded<T>(path: string, reveal: RevealRecord, run: () => T | Promise<T>): Promise<T> {
    const started = performance.now();
    const record = (status: number) =>
      history.record({
        kind: 'workbench',
        method: 'REVEAL',
        path,
        status,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        application_id: null,
        trace_id: null,
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
    token: (tokenId, transactionId) =>
      recorded(`/tokens/${tokenId}`, { target: 'token', token_id: tokenId }, () => ({ data: tokenIn(vault, tokenId, transactionId).data })),
    async outbound(entryId) {
      const entry = await history.get(entryId);
      const tokenIds = (entry?.details as ProxyDetails | undefined)?.expressions?.token_ids ?? [];
      const reveal: RevealRecord = { target: 'outbound', entry_id: entryId, token_ids: [...tokenIds] };
      return recorded(entry?.path ?? `/history/${entryId}`, reveal, () => ({ detokenized_body: revealOutbound(entry) }));
    },
  };
}
