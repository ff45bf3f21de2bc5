import { expect } from 'vitest';
import type { ApiResponse, TestEngine } from '../support/test-engine';

export const TX_HEADER = 'BT-TRANSACTION-ID';

export { revealEverythingKey as revealKey } from '../support/test-engine';

export async function openTransaction(t: TestEngine, key: string): Promise<string> {
  const res = await t.call('POST', '/transactions', { key });
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Calls with PFX-TRANSACTION-ID set, as client code does by hand. */
export function inTransaction(t: TestEngine, key: string, transactionId: string) {
  return (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> =>
    t.call(method, path, { key, body, headers: { [TX_HEADER]: transactionId, ...headers } });
}

export const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

export async function createToken(t: TestEngine, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.call('POST', '/tokens', { key, body });
  expect(res.status).toBe(201);
  return res.body.id;
}
