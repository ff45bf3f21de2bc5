import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesIn, startTestEngine, type TestEngine, vaultsOnPostgres } from '../support/test-engine';
import { vaultSql } from '../support/vault-sql';
import { createToken, inTransaction, openTransaction, revealKey, TX_HEADER } from './transaction-fixtures';

const UNKNOWN = '0b5e8c1a-3d2f-4e6b-9a7c-1f2e3d4c5b6a';

let t: TestEngine;
let key: string;
beforeAll(async () => {
  t = await startTestEngine({ transactionTtlSeconds: 600 });
  key = await revealKey(t);
});
afterAll(() => t.stop());

describe('POST /transactions', () => {
  it('answers 201 with id, created_at, created_by (the caller application) and expires_at one ttl later', async () => {
    const me = await t.call('GET', '/applications/key', { key });
    const res = await t.call('POST', '/transactions', { key });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'created_by', 'expires_at', 'id']);
    expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.body.created_by).toBe(me.body.id);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(600_000);
  });

  it('needs no permission beyond a valid key, but a key', async () => {
    expect((await t.call('POST', '/transactions', { key: t.managementKey })).status).toBe(201);
    expect((await t.call('POST', '/transactions', {})).status).toBe(401);
    expect((await t.call('POST', '/transactions', { key: 'key_not_a_real_key_0123456789' })).status).toBe(401);
  });
});

describe('commit and rollback', () => {
  it('commit answers 200 with an empty body, and the rows are committed in the database before the answer arrives', async () => {
    const id = await openTransaction(t, key);
    const tx = inTransaction(t, key, id);
    const created = await tx('POST', '/tokens', { id: 'committed-before-reply', type: 'token', data: 'x' });
    expect(created.status).toBe(201);
    const res = await t.call('POST', `/transactions/${id}/commit`, { key });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    // A second connection sees only committed data.
    expect(await vaultSql(t, 'SELECT id FROM tokens WHERE id = ?', ['committed-before-reply'])).toEqual([{ id: 'committed-before-reply' }]);
    expect(await vaultSql(t, 'SELECT state FROM transactions WHERE id = ?', [id])).toEqual([{ state: 'committed' }]);
  });

  it('rollback answers 200 with an empty body and discards every enlisted write', async () => {
    const id = await openTransaction(t, key);
    const tx = inTransaction(t, key, id);
    expect((await tx('POST', '/tokens', { id: 'rolled-back-token', type: 'token', data: 'x' })).status).toBe(201);
    const res = await t.call('POST', `/transactions/${id}/rollback`, { key });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect((await t.call('GET', '/tokens/rolled-back-token', { key })).status).toBe(404);
    // The id is free again.
    await createToken(t, key, { id: 'rolled-back-token', type: 'token', data: 'y' });
  });

  // The data folder's files are SQLite's: PostgreSQL keeps no vault there.
  it.skipIf(vaultsOnPostgres())('keeps staged writes sealed: a canary card number enlisted appears in no file of the data dir', async () => {
    const canary = '4000056655665556';
    const id = await openTransaction(t, key);
    const tx = inTransaction(t, key, id);
    expect((await tx('POST', '/tokens', { type: 'card', data: { number: canary } })).status).toBe(201);
    expect((await tx('POST', '/tokenize', { loose: canary })).status).toBe(200);
    const files = () => filesIn(t.dataDir!);
    const leaks = () => files().filter((file) => readFileSync(file).includes(canary));
    expect(files().some((f) => f.endsWith('-wal'))).toBe(true);
    expect(leaks()).toEqual([]);
    expect(JSON.stringify(await t.engine.transactions.get(id))).not.toContain(canary);
    expect((await t.call('POST', `/transactions/${id}/commit`, { key })).status).toBe(200);
    expect(leaks()).toEqual([]);
  });

  it('another application’s key may commit a transaction (no permission beyond a valid key)', async () => {
    const id = await openTransaction(t, key);
    expect((await inTransaction(t, key, id)('POST', '/tokens', { type: 'token', data: 'x' })).status).toBe(201);
    expect((await t.call('POST', `/transactions/${id}/commit`, { key: t.privateKey })).status).toBe(200);
  });

  it.each([
    ['commit', 'commit', 'committed'],
    ['commit', 'rollback', 'committed'],
    ['rollback', 'commit', 'rolled_back'],
    ['rollback', 'rollback', 'rolled_back'],
  ])('after %s, %s answers 409 naming the state', async (first, second, state) => {
    const id = await openTransaction(t, key);
    expect((await t.call('POST', `/transactions/${id}/${first}`, { key })).status).toBe(200);
    const res = await t.call('POST', `/transactions/${id}/${second}`, { key });
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.detail).toContain(state);
  });

  it('enlisting in a transaction that is not open answers 409 naming its state and writes nothing', async () => {
    const id = await openTransaction(t, key);
    await t.call('POST', `/transactions/${id}/rollback`, { key });
    const res = await inTransaction(t, key, id)('POST', '/tokens', { id: 'late-enlist', type: 'token', data: 'x' });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('rolled_back');
    expect((await t.call('GET', '/tokens/late-enlist', { key })).status).toBe(404);
  });
});

describe('unknown and malformed ids', () => {
  it.each(['commit', 'rollback'])('%s of an unknown id answers 404, of a malformed one 400', async (action) => {
    const unknown = await t.call('POST', `/transactions/${UNKNOWN}/${action}`, { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toContain(UNKNOWN);
    const malformed = await t.call('POST', `/transactions/not-a-uuid/${action}`, { key });
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body.errors)).toEqual(['id']);
  });

  it('an unknown id in the header answers 404, a malformed one 400 naming the header, and nothing is written', async () => {
    const tokenId = await createToken(t, key, { type: 'token', data: 'keep me' });
    const unknown = inTransaction(t, key, UNKNOWN);
    const malformed = inTransaction(t, key, 'nope');
    for (const tx of [unknown, malformed]) {
      const expected = tx === unknown ? 404 : 400;
      expect((await tx('POST', '/tokens', { id: 'header-check', type: 'token', data: 'x' })).status).toBe(expected);
      expect((await tx('POST', '/tokenize', { id: 'header-check', type: 'token', data: 'x' })).status).toBe(expected);
      expect((await tx('PATCH', `/tokens/${tokenId}`, { data: 'changed' }, { 'content-type': 'application/merge-patch+json' })).status).toBe(expected);
      expect((await tx('DELETE', `/tokens/${tokenId}`)).status).toBe(expected);
    }
    expect((await malformed('DELETE', `/tokens/${tokenId}`)).body.errors).toHaveProperty(TX_HEADER);
    expect((await t.call('GET', '/tokens/header-check', { key })).status).toBe(404);
    expect((await t.call('GET', `/tokens/${tokenId}`, { key })).body.data).toBe('keep me');
  });

  it('accepts the id in upper case, as some clients print UUIDs', async () => {
    const id = await openTransaction(t, key);
    expect((await t.call('POST', `/transactions/${id.toUpperCase()}/commit`, { key })).status).toBe(200);
  });
});

describe('routes that do not enlist', () => {
  it('ignore the header, even a bogus one', async () => {
    const tokenId = await createToken(t, key, { type: 'token', data: 'plain', search_indexes: ['{{ data }}'] });
    for (const bogus of ['nope', UNKNOWN]) {
      const tx = inTransaction(t, key, bogus);
      expect((await tx('GET', `/tokens/${tokenId}`)).status).toBe(200);
      expect((await tx('GET', `/tokens?id=${tokenId}`)).body.data).toHaveLength(1);
      expect((await tx('GET', '/v2/tokens')).status).toBe(200);
      expect((await tx('POST', '/tokens/search', { query: 'data:plain' })).status).toBe(200);
      expect((await tx('POST', '/detokenize', { v: `{{ ${tokenId} }}` })).body).toEqual({ v: 'plain' });
      expect((await tx('GET', '/applications/key')).status).toBe(200);
      expect((await tx('POST', '/transactions')).status).toBe(201);
    }
  });
});

describe('client code that sets the header by hand', () => {
  it('works with fetch and a lower-case header name', async () => {
    const headers = { 'bt-api-key': key, 'content-type': 'application/json' };
    const created = await fetch(`${t.url}/transactions`, { method: 'POST', headers });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const enlisted = await fetch(`${t.url}/tokens`, {
      method: 'POST',
      headers: { ...headers, 'bt-transaction-id': id },
      body: JSON.stringify({ id: 'fetch-made', type: 'token', data: 'by hand' }),
    });
    expect(enlisted.status).toBe(201);
    expect((await fetch(`${t.url}/tokens/fetch-made`, { headers })).status).toBe(404);
    const commit = await fetch(`${t.url}/transactions/${id}/commit`, { method: 'POST', headers });
    expect(commit.status).toBe(200);
    expect(await commit.text()).toBe('');
    const read = await fetch(`${t.url}/tokens/fetch-made`, { headers });
    expect(((await read.json()) as { data: unknown }).data).toBe('by hand');
  });
});
