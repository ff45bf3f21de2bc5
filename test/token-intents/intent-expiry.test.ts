import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../electron/engine';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { vaultSql } from '../support/vault-sql';

/** Token intents' expiry (docs/api.md, Token intents): enforced at every read, across a restart, and purged. */
const dataDir = tempDir();
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2040, cvc: '123' };
const intentRows = async () => Number((await vaultSql<{ n: number | string }>(dataDir, 'SELECT COUNT(*) AS n FROM token_intents'))[0].n);

async function backendKey(t: TestEngine): Promise<string> {
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'intents', type: 'private', permissions: ['token:create', 'token:use', 'token-intent:create', 'token-intent:read', 'token-intent:delete'] },
  });
  return app.body.key as string;
}

describe('token intent expiry', () => {
  it('takes its time to live from the setting, and an expired intent is gone after a restart, then purged', async () => {
    let t = await startTestEngine({ dataDir, tokenIntentTtlSeconds: 1 });
    const key = await backendKey(t);
    const created = await t.call('POST', '/token-intents', { key, body: { type: 'card', data: CARD } });
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(1000);
    const kept = await t.call('POST', '/token-intents', { key, body: { type: 'card', data: CARD } });
    await t.stop();
    expect(await intentRows()).toBe(2);
    await sleep(1100);

    t = await startTestEngine({ dataDir, tokenIntentTtlSeconds: 60 });
    try {
      expect((await t.call('GET', `/token-intents/${created.body.id}`, { key })).status).toBe(404);
      expect((await t.call('POST', '/tokens', { key, body: { token_intent_id: kept.body.id } })).status).toBe(400);
      const proxied = await t.call('POST', '/proxy', { key, headers: { 'BT-PROXY-URL': 'http://127.0.0.1:9/' }, body: { n: `{{ token_intent: ${created.body.id} }}` } });
      expect(proxied.status).toBe(400);
    } finally {
      await t.stop();
    }
    expect(await intentRows()).toBe(0);
  });

  it('gives back an intent held by a transaction that expired while the engine was stopped', async () => {
    const heldDir = tempDir();
    let t = await startTestEngine({ dataDir: heldDir, transactionTtlSeconds: 1 });
    const key = await backendKey(t);
    try {
      const created = await t.call('POST', '/token-intents', { key, body: { type: 'card', data: CARD } });
      const tx = (await t.call('POST', '/transactions', { key })).body.id as string;
      const staged = await t.call('POST', '/tokens', { key, body: { token_intent_id: created.body.id }, headers: { 'BT-TRANSACTION-ID': tx } });
      expect(staged.status, staged.text).toBe(201);
      expect((await t.call('GET', `/token-intents/${created.body.id}`, { key })).status).toBe(404);
      await t.stop();
      await sleep(1100);
      t = await startTestEngine({ dataDir: heldDir });
      expect((await t.call('GET', `/token-intents/${created.body.id}`, { key })).status).toBe(200);
    } finally {
      await t.stop();
      rmSync(heldDir, { recursive: true, force: true });
    }
  });

  it('expires while the engine runs, without waiting for the purge', async () => {
    const t = await startTestEngine({ inMemory: true, tokenIntentTtlSeconds: 1 });
    try {
      const key = await backendKey(t);
      const created = await t.call('POST', '/token-intents', { key, body: { type: 'card', data: CARD } });
      expect((await t.call('GET', `/token-intents/${created.body.id}`, { key })).status).toBe(200);
      await sleep(1100);
      expect((await t.call('GET', `/token-intents/${created.body.id}`, { key })).status).toBe(404);
      expect((await t.call('DELETE', `/token-intents/${created.body.id}`, { key })).status).toBe(404);
    } finally {
      await t.stop();
    }
  });

  it('takes a time to live Settings saved for new intents, kept across a restart, within the 48 h cap', async () => {
    const settingsDir = tempDir();
    let t = await startTestEngine({ dataDir: settingsDir, workbenchRoutes: true });
    const key = await backendKey(t);
    try {
      expect((await t.workbench('changeTokenIntentTtl', { tokenIntentTtlSeconds: 48 * 3600 + 1 })).status).toBe(400);
      const changed = await t.workbench('changeTokenIntentTtl', { tokenIntentTtlSeconds: 3600 });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.tokenIntents.tokenIntentTtlSeconds).toMatchObject({ value: 3600, default: 86400, stored: 3600 });
      await t.stop();
      t = await startTestEngine({ dataDir: settingsDir });
      const created = await t.call('POST', '/token-intents', { key, body: { type: 'card', data: CARD } });
      expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(3600 * 1000);
    } finally {
      await t.stop();
      rmSync(settingsDir, { recursive: true, force: true });
    }
  });

  it('refuses a time to live over the vendor’s 48 h cap', async () => {
    await expect(startEngine({ port: 0, echoPort: null, tokenIntentTtlSeconds: 48 * 3600 + 1, log: () => undefined })).rejects.toThrow(/48 h/);
  });
});
