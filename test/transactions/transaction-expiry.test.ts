import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { TransactionView } from '../../shared/workbench/transaction-contract';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { createToken, inTransaction, MERGE_PATCH, openTransaction, revealKey } from './transaction-fixtures';

/** Resolves when the engine reports `id` in `state`, without any request that could expire it on demand. */
function stateReached(t: TestEngine, id: string, state: string): Promise<TransactionView> {
  return new Promise((resolve) => {
    void Promise.resolve(t.engine.transactions.get(id)).then((now) => {
      if (now?.state !== state) return;
      t.engine.events.off('transaction', listener);
      resolve(now);
    });
    const listener = (view: TransactionView) => {
      if (view.id !== id || view.state !== state) return;
      t.engine.events.off('transaction', listener);
      resolve(view);
    };
    t.engine.events.on('transaction', listener);
  });
}

interface StagedWork {
  txId: string;
  created: string;
  changed: string;
}

/** Opens a transaction that creates one token and changes another; returns their ids. */
async function stageWork(t: TestEngine, key: string): Promise<StagedWork> {
  const changed = await createToken(t, key, { type: 'token', data: 'untouched' });
  const txId = await openTransaction(t, key);
  const tx = inTransaction(t, key, txId);
  const created = await tx('POST', '/tokens', { type: 'token', data: 'never committed' });
  expect(created.status).toBe(201);
  expect((await tx('PATCH', `/tokens/${changed}`, { data: 'never applied' }, MERGE_PATCH)).status).toBe(200);
  return { txId, created: created.body.id, changed };
}

async function expectRolledBack(t: TestEngine, key: string, work: StagedWork) {
  expect((await t.call('GET', `/tokens/${work.created}`, { key })).status).toBe(404);
  expect((await t.call('GET', `/tokens/${work.changed}`, { key })).body.data).toBe('untouched');
  // The lock is gone with it.
  expect((await t.call('PATCH', `/tokens/${work.changed}`, { key, body: { data: 'free' }, headers: MERGE_PATCH })).status).toBe(200);
  const commit = await t.call('POST', `/transactions/${work.txId}/commit`, { key });
  expect(commit.status).toBe(409);
  expect(commit.body.detail).toContain('expired');
}

/** Stages work in an engine on a fresh data dir, stops it (waiting out the expiry if asked), and runs `then` in a second. */
async function acrossRestart(
  ttlSeconds: number,
  { afterExpiry }: { afterExpiry: boolean },
  then: (second: TestEngine, key: string, work: StagedWork) => Promise<void>,
) {
  const dataDir = tempDir();
  const start = () => startTestEngine({ dataDir, transactionTtlSeconds: ttlSeconds });
  try {
    const first = await start();
    const key = await revealKey(first);
    const work = await stageWork(first, key);
    const expiresAt = Date.parse((await first.engine.transactions.get(work.txId))!.expires_at);
    await first.stop();
    if (afterExpiry) await sleep(Math.max(0, expiresAt - Date.now()) + 50);
    const second = await start();
    try {
      await then(second, key, work);
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('transaction expiry', () => {
  it('rolls back on its own when the ttl runs out while the service runs', async () => {
    const t = await startTestEngine({ transactionTtlSeconds: 2 });
    try {
      const key = await revealKey(t);
      const work = await stageWork(t, key);
      const before = (await t.engine.transactions.get(work.txId))!;
      expect(before.state).toBe('open');
      expect(before.time_left_ms).toBeLessThanOrEqual(2000);

      const expired = await stateReached(t, work.txId, 'expired');
      expect(expired).toMatchObject({ time_left_ms: 0, ended_at: expect.any(String) });
      expect((await t.engine.transactions.get(work.txId))!.state).toBe('expired');
      await expectRolledBack(t, key, work);
    } finally {
      await t.stop();
    }
  });

  it('refuses enlisting once the ttl has passed, with 409 naming the expired state', async () => {
    const t = await startTestEngine({ transactionTtlSeconds: 1 });
    try {
      const key = await revealKey(t);
      const txId = await openTransaction(t, key);
      await stateReached(t, txId, 'expired');
      const res = await inTransaction(t, key, txId)('POST', '/tokens', { type: 'token', data: 'late' });
      expect(res.status).toBe(409);
      expect(res.body.detail).toContain('expired');
    } finally {
      await t.stop();
    }
  });

  it('rolls back at start-up what expired while the service was stopped', async () => {
    await acrossRestart(2, { afterExpiry: true }, async (second, key, work) => {
      // Before any request could expire it on demand.
      expect(await second.engine.transactions.get(work.txId)).toMatchObject({ state: 'expired', time_left_ms: 0 });
      await expectRolledBack(second, key, work);
    });
  });

  it('keeps an open transaction open across a restart within its ttl, and commits it then', async () => {
    await acrossRestart(600, { afterExpiry: false }, async (second, key, work) => {
      const tx = inTransaction(second, key, work.txId);
      // Its lock and its own view survive the restart.
      expect((await second.call('DELETE', `/tokens/${work.changed}`, { key })).status).toBe(409);
      expect((await tx('PATCH', `/tokens/${work.changed}`, { data: 'after restart' }, MERGE_PATCH)).status).toBe(200);
      expect((await second.call('POST', `/transactions/${work.txId}/commit`, { key })).status).toBe(200);
      expect((await second.call('GET', `/tokens/${work.created}`, { key })).body.data).toBe('never committed');
      expect((await second.call('GET', `/tokens/${work.changed}`, { key })).body.data).toBe('after restart');
    });
  });
});
