import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionView } from '../../shared/workbench/transaction-contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { createToken, inTransaction, MERGE_PATCH, openTransaction, revealKey } from './transaction-fixtures';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };

let t: TestEngine;
let key: string;
beforeAll(async () => {
  t = await startTestEngine({ echoPort: 0 });
  key = await revealKey(t);
});
afterAll(() => t.stop());

const read = (id: string) => t.call('GET', `/tokens/${id}`, { key });
const commit = (id: string) => t.call('POST', `/transactions/${id}/commit`, { key });

/** Every way a client outside the transaction can find tokens of a metadata group (what read-committed must hide). */
async function visibleOutside(group: string, searchValue: string) {
  const v1 = await t.call('GET', `/tokens?metadata.group=${group}`, { key });
  const v2 = await t.call('GET', `/v2/tokens?metadata.group=${group}`, { key });
  const search1 = await t.call('POST', '/tokens/search', { key, body: { query: `data:${searchValue}` } });
  const search2 = await t.call('POST', '/v2/tokens/search', { key, body: { query: `metadata.group:${group}` } });
  const ids = (res: typeof v1) => res.body.data.map((d: { id: string }) => d.id).sort();
  return { v1: ids(v1), v2: ids(v2), search1: ids(search1), search2: ids(search2) };
}

describe('enlisting', () => {
  it('answers each of the four routes as it would outside, and stages instead of applying', async () => {
    const toUpdate = await createToken(t, key, { type: 'token', data: { a: 1 }, metadata: { group: 'enlist' } });
    const toDelete = await createToken(t, key, { type: 'token', data: 'delete me', metadata: { group: 'enlist' } });
    const txId = await openTransaction(t, key);
    const tx = inTransaction(t, key, txId);

    const created = await tx('POST', '/tokens', { type: 'card', data: CARD, metadata: { group: 'enlist' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'card', data: CARD, card: { last4: '4242' }, _extras: { deduplicated: false } });

    const tokenized = await tx('POST', '/tokenize', { first: 'alpha', nested: { second: 'beta' } });
    expect(tokenized.status).toBe(200);
    expect(tokenized.body).toEqual({ first: expect.any(String), nested: { second: expect.any(String) } });

    const updated = await tx('PATCH', `/tokens/${toUpdate}`, { data: { b: 2 }, metadata: { step: 'one' } }, MERGE_PATCH);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: toUpdate, data: { a: 1, b: 2 }, metadata: { group: 'enlist', step: 'one' } });

    const deleted = await tx('DELETE', `/tokens/${toDelete}`);
    expect(deleted.status).toBe(204);

    // Nothing has happened outside yet.
    expect((await read(created.body.id)).status).toBe(404);
    expect((await read(tokenized.body.first)).status).toBe(404);
    expect((await read(toUpdate)).body.data).toEqual({ a: 1 });
    expect((await read(toDelete)).body.data).toBe('delete me');

    expect((await commit(txId)).status).toBe(200);
    expect((await read(created.body.id)).body.data).toEqual(CARD);
    expect((await read(tokenized.body.first)).body.data).toBe('alpha');
    expect((await read(tokenized.body.nested.second)).body.data).toBe('beta');
    expect((await read(toUpdate)).body).toMatchObject({ data: { a: 1, b: 2 }, metadata: { step: 'one' } });
    expect((await read(toDelete)).status).toBe(404);
  });

  it('still validates at enlist time: a bad request is a 400 and stages nothing', async () => {
    const txId = await openTransaction(t, key);
    const tx = inTransaction(t, key, txId);
    const bad = await tx('POST', '/tokens', { id: 'bad-card', type: 'card', data: { ...CARD, number: '4242424242424241' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toContain('data.number');
    const badBatch = await tx('POST', '/tokenize', [
      { id: 'batch-good', type: 'token', data: 'ok' },
      { id: 'batch-bad', type: 'nonsense', data: 'x' },
    ]);
    expect(badBatch.status).toBe(400);
    expect((await commit(txId)).status).toBe(200);
    for (const id of ['bad-card', 'batch-good', 'batch-bad']) expect((await read(id)).status).toBe(404);
    expect((await t.engine.transactions.get(txId))!.operations).toEqual([]);
  });

  it('sees its own writes: a second PATCH builds on the first, a token created inside can be changed inside', async () => {
    const existing = await createToken(t, key, { type: 'token', data: { n: 0 } });
    const txId = await openTransaction(t, key);
    const tx = inTransaction(t, key, txId);
    expect((await tx('PATCH', `/tokens/${existing}`, { data: { a: 'first' } }, MERGE_PATCH)).status).toBe(200);
    const second = await tx('PATCH', `/tokens/${existing}`, { data: { b: 'second' } }, MERGE_PATCH);
    expect(second.body.data).toEqual({ n: 0, a: 'first', b: 'second' });

    expect((await tx('POST', '/tokens', { id: 'made-inside', type: 'token', data: { v: 1 } })).status).toBe(201);
    expect((await tx('PATCH', '/tokens/made-inside', { data: { v: 2 } }, MERGE_PATCH)).status).toBe(200);
    expect((await tx('POST', '/tokens', { id: 'made-inside', type: 'token', data: 'again' })).status).toBe(409);
    expect((await tx('POST', '/tokens', { id: 'made-and-dropped', type: 'token', data: 'gone' })).status).toBe(201);
    expect((await tx('DELETE', '/tokens/made-and-dropped')).status).toBe(204);
    expect((await tx('PATCH', '/tokens/made-and-dropped', { data: 'x' }, MERGE_PATCH)).status).toBe(404);

    expect((await commit(txId)).status).toBe(200);
    expect((await read(existing)).body.data).toEqual({ n: 0, a: 'first', b: 'second' });
    expect((await read('made-inside')).body.data).toEqual({ v: 2 });
    expect((await read('made-and-dropped')).status).toBe(404);
  });
});

describe('read-committed isolation', () => {
  it('hides tokens created or changed inside from reads, lists, searches and detokenize until commit', async () => {
    const changed = await createToken(t, key, {
      type: 'token', data: 'before', search_indexes: ['{{ data }}'], metadata: { group: 'iso' },
    });
    const txId = await openTransaction(t, key);
    const tx = inTransaction(t, key, txId);
    const made = await tx('POST', '/tokens', {
      type: 'token', data: 'hidden-value', search_indexes: ['{{ data }}'], metadata: { group: 'iso' },
    });
    expect(made.status).toBe(201);
    expect((await tx('PATCH', `/tokens/${changed}`, { data: 'after' }, MERGE_PATCH)).status).toBe(200);

    expect(await visibleOutside('iso', 'hidden-value')).toEqual({ v1: [changed], v2: [changed], search1: [], search2: [changed] });
    expect((await t.call('POST', '/tokens/search', { key, body: { query: 'data:after' } })).body.data).toEqual([]);
    expect((await read(changed)).body.data).toBe('before');
    const detok = await t.call('POST', '/detokenize', { key, body: { a: `{{ ${made.body.id} }}` } });
    expect(detok.status).toBe(400);
    expect(detok.body.detail).toContain(made.body.id);
    expect((await t.call('POST', '/detokenize', { key, body: { a: `{{ ${changed} }}` } })).body).toEqual({ a: 'before' });

    expect((await commit(txId)).status).toBe(200);
    const both = [changed, made.body.id].sort();
    expect(await visibleOutside('iso', 'hidden-value')).toEqual({ v1: both, v2: both, search1: [made.body.id], search2: both });
    expect((await t.call('POST', '/detokenize', { key, body: { a: `{{ ${changed} }}` } })).body).toEqual({ a: 'after' });
  });

  it('hides them from the proxy too, which detokenizes only committed tokens', async () => {
    const changed = await createToken(t, key, { type: 'token', data: 'proxied before' });
    const txId = await openTransaction(t, key);
    const tx = inTransaction(t, key, txId);
    const made = await tx('POST', '/tokens', { type: 'token', data: 'proxied new' });
    expect((await tx('PATCH', `/tokens/${changed}`, { data: 'proxied after' }, MERGE_PATCH)).status).toBe(200);
    const proxy = (body: unknown) => t.call('POST', '/proxy', { key, body, headers: { 'BT-PROXY-URL': t.engine.echoUrl! } });

    const hidden = await proxy({ v: `{{ ${made.body.id} }}` });
    expect(hidden.status).toBe(400);
    expect(JSON.stringify(hidden.body)).toContain(made.body.id);
    expect(JSON.parse((await proxy({ v: `{{ ${changed} }}` })).body.body)).toEqual({ v: 'proxied before' });

    expect((await commit(txId)).status).toBe(200);
    const after = await proxy({ made: `{{ ${made.body.id} }}`, changed: `{{ ${changed} }}` });
    expect(JSON.parse(after.body.body)).toEqual({ made: 'proxied new', changed: 'proxied after' });
  });

  it('keeps tokens deleted inside visible outside until commit', async () => {
    const doomed = await createToken(t, key, { type: 'token', data: 'still-here', search_indexes: ['{{ data }}'], metadata: { group: 'doomed' } });
    const txId = await openTransaction(t, key);
    expect((await inTransaction(t, key, txId)('DELETE', `/tokens/${doomed}`)).status).toBe(204);
    expect((await read(doomed)).body.data).toBe('still-here');
    expect(await visibleOutside('doomed', 'still-here')).toEqual({ v1: [doomed], v2: [doomed], search1: [doomed], search2: [doomed] });
    expect((await commit(txId)).status).toBe(200);
    expect((await read(doomed)).status).toBe(404);
    expect(await visibleOutside('doomed', 'still-here')).toEqual({ v1: [], v2: [], search1: [], search2: [] });
  });
});

describe('deduplication inside a transaction', () => {
  const request = (data: string) => ({ type: 'token', data, deduplicate_token: true });

  it('matches committed tokens and tokens staged in the same transaction, not those of another open one', async () => {
    const committed = await t.call('POST', '/tokens', { key, body: request('dedup-committed') });
    const txId = await openTransaction(t, key);
    const tx = inTransaction(t, key, txId);

    const again = await tx('POST', '/tokens', request('dedup-committed'));
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: committed.body.id, _extras: { deduplicated: true } });

    const first = await tx('POST', '/tokens', request('dedup-staged'));
    expect(first.body._extras).toEqual({ deduplicated: false });
    const second = await tx('POST', '/tokens', request('dedup-staged'));
    expect(second.body).toMatchObject({ id: first.body.id, _extras: { deduplicated: true } });

    const other = await inTransaction(t, key, await openTransaction(t, key))('POST', '/tokens', request('dedup-staged'));
    expect(other.body._extras).toEqual({ deduplicated: false });
    expect(other.body.id).not.toBe(first.body.id);

    // A deduplicated answer enlists nothing.
    expect((await t.engine.transactions.get(txId))!.operations.map((o) => o.token_id)).toEqual([first.body.id]);
  });
});

describe('the GUI view', () => {
  it('lists each transaction with state, time left and its operations with masked data only', async () => {
    const existing = await createToken(t, key, { type: 'card', data: { ...CARD, number: '5555555555554444' } });
    const txId = await openTransaction(t, key);
    const seen: TransactionView[] = [];
    const listener = (view: TransactionView) => {
      if (view.id === txId) seen.push(view);
    };
    // Each change's event is heard, with the state that change made, before the change is answered.
    const heard = () => seen.map((v) => [v.state, v.operations.length]);
    t.engine.events.on('transaction', listener);
    try {
      const tx = inTransaction(t, key, txId);
      await tx('POST', '/tokens', { type: 'card', data: CARD });
      expect(heard()).toEqual([['open', 1]]);
      await tx('DELETE', `/tokens/${existing}`);
      expect(heard()).toEqual([['open', 1], ['open', 2]]);
      expect(seen[1].operations[1]).toMatchObject({ token_id: existing, data: expect.objectContaining({ number: 'XXXXXXXXXXXX4444' }) });

      const view = (await t.engine.transactions.get(txId))!;
      expect(view).toMatchObject({ id: txId, state: 'open', ended_at: null });
      expect(view.time_left_ms).toBeGreaterThan(0);
      expect(view.operations).toEqual([
        { token_id: expect.any(String), operation: 'create', enlisted_at: expect.any(String), application_id: expect.any(String), data: expect.objectContaining({ number: 'XXXXXXXXXXXX4242' }) },
        { token_id: existing, operation: 'delete', enlisted_at: expect.any(String), application_id: expect.any(String), data: expect.objectContaining({ number: 'XXXXXXXXXXXX4444' }) },
      ]);
      const listed = JSON.stringify(await t.engine.transactions.page({ limit: 100 }));
      expect(listed).toContain(txId);
      expect(listed).not.toContain('4242424242424242');
      expect(listed).not.toContain('5555555555554444');

      expect((await commit(txId)).status).toBe(200);
      expect(heard()).toEqual([['open', 1], ['open', 2], ['committed', 2]]);
      const ended = (await t.engine.transactions.get(txId))!;
      expect(ended).toMatchObject({ state: 'committed', time_left_ms: 0, ended_at: expect.any(String) });
      expect(ended.operations.map((o) => [o.operation, o.data])).toEqual([['create', null], ['delete', null]]);
    } finally {
      t.engine.events.off('transaction', listener);
    }
  });
});
