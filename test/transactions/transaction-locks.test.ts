import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { createToken, inTransaction, MERGE_PATCH, openTransaction, revealKey } from './transaction-fixtures';

let t: TestEngine;
let key: string;
beforeAll(async () => {
  t = await startTestEngine();
  key = await revealKey(t);
});
afterAll(() => t.stop());

const read = (id: string) => t.call('GET', `/tokens/${id}`, { key });
const patch = (id: string, data: unknown, transactionId?: string) =>
  t.call('PATCH', `/tokens/${id}`, { key, body: { data }, headers: { ...MERGE_PATCH, ...(transactionId ? { 'BT-TRANSACTION-ID': transactionId } : {}) } });
const remove = (id: string, transactionId?: string) =>
  t.call('DELETE', `/tokens/${id}`, { key, headers: transactionId ? { 'BT-TRANSACTION-ID': transactionId } : {} });

describe.each([
  // The holder sees its own write: a token it updated can be patched again, one it deleted is gone (404).
  ['updated', (id: string, tx: string) => patch(id, 'locked value', tx), 200],
  ['deleted', (id: string, tx: string) => remove(id, tx), 404],
])('a token %s in an open transaction', (_label, lockIt, holderAgain) => {
  it('cannot be changed or deleted outside, nor enlisted in another transaction (409), until the holder ends', async () => {
    const token = await createToken(t, key, { type: 'token', data: 'original' });
    const holder = await openTransaction(t, key);
    expect((await lockIt(token, holder)).status).toBeLessThan(300);

    const other = await openTransaction(t, key);
    const refusals = [
      await patch(token, 'outside'),
      await remove(token),
      await patch(token, 'other transaction', other),
      await remove(token, other),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(409);
      expect(res.body.detail).toContain(token);
    }
    expect((await read(token)).body.data).toBe('original');

    expect((await patch(token, 'holder again', holder)).status).toBe(holderAgain);

    expect((await t.call('POST', `/transactions/${holder}/rollback`, { key })).status).toBe(200);
    expect((await patch(token, 'free again', other)).status).toBe(200);
    expect((await t.call('POST', `/transactions/${other}/commit`, { key })).status).toBe(200);
    expect((await read(token)).body.data).toBe('free again');
  });
});

describe('ids being created in an open transaction', () => {
  it('cannot be created by another transaction or outside (409)', async () => {
    const holder = await openTransaction(t, key);
    const body = { id: 'reserved-id', type: 'token', data: 'mine' };
    expect((await inTransaction(t, key, holder)('POST', '/tokens', body)).status).toBe(201);
    const other = await openTransaction(t, key);
    const refusals = [
      await t.call('POST', '/tokens', { key, body }),
      await t.call('POST', '/tokenize', { key, body: [body] }),
      await inTransaction(t, key, other)('POST', '/tokens', body),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(409);
      expect(res.body.detail).toContain('reserved-id');
    }
    expect((await t.call('POST', `/transactions/${holder}/commit`, { key })).status).toBe(200);
    expect((await read('reserved-id')).body.data).toBe('mine');
  });
});

describe('two clients racing on the same token', () => {
  it.each([
    ['PATCH', (id: string, tx: string, n: number) => patch(id, `writer ${n}`, tx)],
    ['DELETE', (id: string, tx: string) => remove(id, tx)],
  ])('%s in two transactions at once: exactly one wins, the other gets 409', async (_label, write) => {
    for (let round = 0; round < 5; round += 1) {
      const token = await createToken(t, key, { type: 'token', data: 'contested' });
      const [a, b] = await Promise.all([openTransaction(t, key), openTransaction(t, key)]);
      const results = await Promise.all([write(token, a, 1), write(token, b, 2)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses[0]).toBeLessThan(300);
      expect(statuses[1]).toBe(409);
      // Committing both: only the winner's write lands.
      const winner = results[0].status < 300 ? a : b;
      expect((await t.call('POST', `/transactions/${a}/commit`, { key })).status).toBe(200);
      expect((await t.call('POST', `/transactions/${b}/commit`, { key })).status).toBe(200);
      const after = await read(token);
      if (_label === 'PATCH') expect(after.body.data).toBe(winner === a ? 'writer 1' : 'writer 2');
      else expect(after.status).toBe(404);
    }
  });

  it('creating one id in two transactions at once: exactly one wins', async () => {
    const [a, b] = await Promise.all([openTransaction(t, key), openTransaction(t, key)]);
    const body = (n: number) => ({ id: 'raced-create', type: 'token', data: `creator ${n}` });
    const results = await Promise.all([
      inTransaction(t, key, a)('POST', '/tokens', body(1)),
      inTransaction(t, key, b)('POST', '/tokens', body(2)),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });
});
