import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionViewSchema } from '../../shared/workbench/transaction-contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { createToken, inTransaction, MERGE_PATCH, openTransaction, revealKey } from '../transactions/transaction-fixtures';

/** The Transactions page's engine side: who enlisted each write, the locks held, and what a commit would show. */
const PAN = '4242424242424242';
const OTHER_PAN = '5555555555554444';
let t: TestEngine;
let key: string;
let appId: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  key = await revealKey(t);
  appId = (await t.call('GET', '/applications/key', { key })).body.id;
});
afterAll(() => t.stop());

const view = async (id: string) => {
  const listed = await t.engine.workbench.listTransactions({ limit: 100 });
  return transactionViewSchema.parse(listed.transactions.find((tx) => tx.id === id));
};

describe('a transaction as the workbench shows it', () => {
  it('names the application that enlisted each write, whichever key opened the transaction', async () => {
    const id = await openTransaction(t, t.privateKey);
    await inTransaction(t, key, id)('POST', '/tokens', { type: 'card_number', data: PAN });
    await inTransaction(t, t.privateKey, id)('POST', '/tokens', { type: 'token', data: 'x' });
    const shown = await view(id);
    expect(shown.created_by).toBe(t.engine.bootstrapKeys!.private.application_id);
    expect(shown.operations.map((op) => op.application_id)).toEqual([appId, t.engine.bootstrapKeys!.private.application_id]);
  });

  it('lists the locks it holds and what its commit would make visible, replaying its writes per token', async () => {
    const updated = await createToken(t, key, { type: 'card_number', data: OTHER_PAN });
    const deleted = await createToken(t, key, { type: 'card_number', data: '4111111111111111' });
    const changedThenDeleted = await createToken(t, key, { type: 'token', data: 'also gone' });
    const id = await openTransaction(t, key);
    const tx = inTransaction(t, key, id);
    const created = (await tx('POST', '/tokens', { type: 'card_number', data: PAN })).body.id;
    const fleeting = (await tx('POST', '/tokens', { type: 'token', data: 'never seen' })).body.id;
    expect((await tx('PATCH', `/tokens/${updated}`, { metadata: { note: 'changed' } }, MERGE_PATCH)).status).toBe(200);
    expect((await tx('DELETE', `/tokens/${deleted}`)).status).toBe(204);
    expect((await tx('DELETE', `/tokens/${fleeting}`)).status).toBe(204);
    expect((await tx('PATCH', `/tokens/${changedThenDeleted}`, { metadata: { a: 'b' } }, MERGE_PATCH)).status).toBe(200);
    expect((await tx('DELETE', `/tokens/${changedThenDeleted}`)).status).toBe(204);

    const shown = await view(id);
    expect(shown.locks).toEqual([
      { token_id: created, kind: 'reserved' },
      { token_id: fleeting, kind: 'reserved' },
      { token_id: updated, kind: 'locked' },
      { token_id: deleted, kind: 'locked' },
      { token_id: changedThenDeleted, kind: 'locked' },
    ]);
    expect(shown.on_commit).toEqual([
      { token_id: created, effect: 'created', data: 'XXXXXXXXXXXX4242' },
      { token_id: updated, effect: 'updated', data: 'XXXXXXXXXXXX4444' },
      // A deleted token's data as it is now (masked); a plain token has no mask, so nothing of it shows.
      { token_id: deleted, effect: 'deleted', data: 'XXXXXXXXXXXX1111' },
      { token_id: changedThenDeleted, effect: 'deleted', data: null },
    ]);
    expect(JSON.stringify(shown)).not.toContain(PAN);
    expect(JSON.stringify(shown)).not.toContain(OTHER_PAN);

    // What the view promised is what the commit does.
    expect((await t.call('POST', `/transactions/${id}/commit`, { key })).status).toBe(200);
    expect((await t.call('GET', `/tokens/${created}`, { key })).status).toBe(200);
    expect((await t.call('GET', `/tokens/${fleeting}`, { key })).status).toBe(404);
    expect((await t.call('GET', `/tokens/${updated}`, { key })).body.metadata).toEqual({ note: 'changed' });
    expect((await t.call('GET', `/tokens/${deleted}`, { key })).status).toBe(404);
    expect((await t.call('GET', `/tokens/${changedThenDeleted}`, { key })).status).toBe(404);

    const ended = await view(id);
    expect(ended).toMatchObject({ state: 'committed', locks: [], on_commit: [] });
    expect(ended.operations).toHaveLength(7);
  });

  it('holds nothing once rolled back', async () => {
    const id = await openTransaction(t, key);
    await inTransaction(t, key, id)('POST', '/tokens', { type: 'token', data: 'x' });
    expect((await view(id)).locks).toHaveLength(1);
    expect((await t.call('POST', `/transactions/${id}/rollback`, { key })).status).toBe(200);
    expect(await view(id)).toMatchObject({ state: 'rolled_back', locks: [], on_commit: [] });
  });
});
