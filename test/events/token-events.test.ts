import { afterEach, describe, expect, it } from 'vitest';
import { revealEverythingKey, type TestEngine } from '../support/test-engine';
import { inTransaction, MERGE_PATCH, openTransaction } from '../transactions/transaction-fixtures';
import { applicationIdOf, engineKeeping, expectEnvelope, raised, traced } from './event-support';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2040 };
const TOKEN_FIELDS = ['containers', 'created_at', 'created_by', 'expires_at', 'fingerprint', 'fingerprint_expression', 'id', 'metadata', 'search_indexes', 'type'];

let t: TestEngine;
afterEach(() => t?.stop());

describe('token events', () => {
  it('raises token.created, token.updated and token.deleted with the token but never its data, the caller as actor and the trace id', async () => {
    t = await engineKeeping(['token.created', 'token.updated', 'token.deleted']);
    const key = await revealEverythingKey(t);
    const appId = await applicationIdOf(t, key);
    const created = await t.call('POST', '/tokens', { key, body: { type: 'card', data: CARD, metadata: { order: '7' } }, headers: traced('trace-create') });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await t.call('PATCH', `/tokens/${id}`, { key, body: { metadata: { order: '8' } }, headers: { ...MERGE_PATCH, ...traced('trace-update') } })).status).toBe(200);
    expect((await t.call('DELETE', `/tokens/${id}`, { key, headers: traced('trace-delete') })).status).toBe(204);

    const [create, update, remove] = await raised(t);
    expect(create.type).toBe('token.created');
    expectEnvelope(create, t, { actorId: appId, traceId: 'trace-create' });
    expect(Object.keys(create.data.token as object).sort()).toEqual(TOKEN_FIELDS);
    expect(create.data.token).toMatchObject({ id, type: 'card', metadata: { order: '7' }, containers: ['/pci/high/'], created_by: appId });
    expect(update.type).toBe('token.updated');
    expectEnvelope(update, t, { actorId: appId, traceId: 'trace-update' });
    expect(update.data.token).toMatchObject({ id, metadata: { order: '8' }, modified_by: appId, modified_at: expect.any(String) });
    expect(remove).toMatchObject({ type: 'token.deleted', trace_id: 'trace-delete', data: { token: { id } } });
    expect(remove.data.token).toEqual({ id });
    expect(JSON.stringify([create, update, remove])).not.toContain('4242424242424242');
  });

  it('raises one token.created per token of a tokenize request and of creates grouped in one turn', async () => {
    t = await engineKeeping(['token.created']);
    const key = await revealEverythingKey(t);
    const made = await t.call('POST', '/tokenize', { key, body: { a: 'one', b: { type: 'token', data: 'two' } }, headers: traced('trace-tokenize') });
    expect(made.status).toBe(200);
    const grouped = await Promise.all([1, 2, 3].map((n) => t.call('POST', '/tokens', { key, body: { type: 'token', data: `v${n}` } })));
    const events = await raised(t, 'token.created');
    expect(events.filter((e) => e.trace_id === 'trace-tokenize').map((e) => (e.data.token as { id: string }).id).sort()).toEqual([made.body.a, made.body.b.id].sort());
    expect(events.map((e) => (e.data.token as { id: string }).id)).toEqual(expect.arrayContaining(grouped.map((r) => r.body.id)));
    expect(events).toHaveLength(5);
  });

  it('raises nothing for a type no subscription wants, nor for a write that fails', async () => {
    t = await engineKeeping(['token.updated']);
    const key = await revealEverythingKey(t);
    expect((await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'x' } })).status).toBe(201);
    expect((await t.call('PATCH', '/tokens/00000000-0000-4000-8000-000000000000', { key, body: { data: 'y' }, headers: MERGE_PATCH })).status).toBe(404);
    expect(await raised(t)).toEqual([]);
  });

  it("raises a BETA transaction's writes at its commit, each with the actor and trace id of the request that made it", async () => {
    t = await engineKeeping(['token.created', 'token.deleted']);
    const key = await revealEverythingKey(t);
    const existing = (await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'old' } })).body.id as string;
    const tx = await openTransaction(t, key);
    const call = inTransaction(t, key, tx);
    const staged = await call('POST', '/tokens', { type: 'token', data: 'staged' }, traced('trace-staged'));
    expect(staged.status).toBe(201);
    expect((await call('DELETE', `/tokens/${existing}`, undefined, traced('trace-staged-delete'))).status).toBe(204);
    const before = await raised(t);
    expect(before.map((e) => e.type)).toEqual(['token.created']);
    expect((await t.call('POST', `/transactions/${tx}/commit`, { key })).status).toBe(200);
    const after = (await raised(t)).slice(1);
    expect(after.map((e) => [e.type, e.trace_id, (e.data.token as { id: string }).id])).toEqual([
      ['token.created', 'trace-staged', staged.body.id],
      ['token.deleted', 'trace-staged-delete', existing],
    ]);
  });

  it("raises nothing for a BETA transaction's writes when it rolls back or expires", async () => {
    t = await engineKeeping(['token.created'], { transactionTtlSeconds: 1 });
    const key = await revealEverythingKey(t);
    const rolled = await openTransaction(t, key);
    expect((await inTransaction(t, key, rolled)('POST', '/tokens', { type: 'token', data: 'a' })).status).toBe(201);
    expect((await t.call('POST', `/transactions/${rolled}/rollback`, { key })).status).toBe(200);
    const expiring = await openTransaction(t, key);
    expect((await inTransaction(t, key, expiring)('POST', '/tokens', { type: 'token', data: 'b' })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await t.call('POST', `/transactions/${expiring}/commit`, { key })).status).toBe(409);
    expect(await raised(t)).toEqual([]);
  });

  it('raises token.expired once for a token found expired, with the system as actor', async () => {
    t = await engineKeeping(['token.expired']);
    const key = await revealEverythingKey(t);
    const expiresAt = new Date(Date.now() + 1000).toISOString();
    const id = (await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'soon', expires_at: expiresAt } })).body.id as string;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await t.call('GET', `/tokens/${id}`, { key })).status).toBe(404);
    expect((await t.call('GET', `/tokens/${id}`, { key })).status).toBe(404);
    const events = await raised(t, 'token.expired');
    expect(events).toHaveLength(1);
    expectEnvelope(events[0], t, { actorId: 'system', actorType: 'system', traceId: null });
    expect(events[0].data.token).toEqual({ id });
  });

  it('raises token.read for a read, a detokenize and a search that returns data, batched and never with the data', async () => {
    t = await engineKeeping(['token.read']);
    const key = await revealEverythingKey(t);
    const id = (await t.call('POST', '/tokens', { key, body: { type: 'card', data: CARD } })).body.id as string;
    expect(await raised(t)).toEqual([]);
    expect((await t.call('GET', `/tokens/${id}`, { key, headers: traced('trace-read') })).status).toBe(200);
    expect((await t.call('POST', '/detokenize', { key, body: { n: `{{ token: ${id} | json: '$.number' }}` }, headers: traced('trace-detokenize') })).status).toBe(200);
    expect((await t.call('POST', '/v2/tokens/search', { key, body: { query: `id:${id}` }, headers: traced('trace-search') })).status).toBe(200);
    const events = await raised(t, 'token.read');
    expect(events.map((e) => e.trace_id)).toEqual(['trace-read', 'trace-detokenize', 'trace-search']);
    for (const event of events) expect(event.data.token).toEqual({ id, type: 'card' });
    expectEnvelope(events[0], t, { actorId: await applicationIdOf(t, key), traceId: 'trace-read' });
    expect(JSON.stringify(events)).not.toContain('4242424242424242');
  });

  it('raises no token.read for a read that fails or for a create', async () => {
    t = await engineKeeping(['token.read']);
    const key = await revealEverythingKey(t);
    await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'x' } });
    expect((await t.call('GET', '/tokens/00000000-0000-4000-8000-000000000000', { key })).status).toBe(404);
    expect(await raised(t)).toEqual([]);
  });
});
