import { expect } from 'vitest';
import type { ApiResponse, TestEngine } from '../support/test-engine';

export const TX_HEADER = 'BT-TRANSACTION-ID';

/** A private application that may do everything to every token and sees plaintext: reads prove what is stored. */
export async function revealKey(t: TestEngine): Promise<string> {
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: {
      name: 'reveal everything',
      type: 'private',
      rules: [
        {
          description: 'all',
          priority: 1,
          container: '/',
          transform: 'reveal',
          permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'],
        },
      ],
    },
  });
  expect(app.status).toBe(201);
  return app.body.key;
}

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
