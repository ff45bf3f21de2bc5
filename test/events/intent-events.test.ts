import { afterEach, describe, expect, it } from 'vitest';
import type { TestEngine } from '../support/test-engine';
import { inTransaction, openTransaction } from '../transactions/transaction-fixtures';
import { applicationIdOf, engineKeeping, expectEnvelope, raised, traced } from './event-support';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2040, cvc: '123' };

let t: TestEngine;
afterEach(() => t?.stop());

/** A back end that makes, converts and deletes intents. */
async function intentsKey(t: TestEngine): Promise<string> {
  const rules = [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:use'] }];
  const body = { name: 'intents', type: 'private', permissions: ['token-intent:create', 'token-intent:read', 'token-intent:delete'], rules };
  const res = await t.call('POST', '/applications', { key: t.managementKey, body });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

async function intentOf(t: TestEngine, key: string, traceId = 'trace-intent'): Promise<string> {
  const res = await t.call('POST', '/token-intents', { key, body: { type: 'card', data: CARD }, headers: traced(traceId) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('token intent events', () => {
  it('raises token-intent.created and token-intent.deleted without the data', async () => {
    t = await engineKeeping(['token-intent.created', 'token-intent.deleted']);
    const key = await intentsKey(t);
    const id = await intentOf(t, key);
    expect((await t.call('DELETE', `/token-intents/${id}`, { key, headers: traced('trace-delete') })).status).toBe(204);
    const [created, deleted] = await raised(t);
    expect(created.type).toBe('token-intent.created');
    expectEnvelope(created, t, { actorId: await applicationIdOf(t, key), traceId: 'trace-intent' });
    expect(Object.keys(created.data.token_intent as object).sort()).toEqual(['created_at', 'created_by', 'expires_at', 'fingerprint', 'id', 'type']);
    expect(created.data.token_intent).toMatchObject({ id, type: 'card' });
    expect(deleted).toMatchObject({ type: 'token-intent.deleted', trace_id: 'trace-delete', data: { token_intent: { id } } });
    expect(JSON.stringify([created, deleted])).not.toMatch(/4242424242424242|"cvc"/);
  });

  it('raises token-intent.converted with the token it became, by POST /tokens and by /tokenize', async () => {
    t = await engineKeeping(['token-intent.converted', 'token.created']);
    const key = await intentsKey(t);
    const first = await intentOf(t, key);
    const second = await intentOf(t, key);
    const token = await t.call('POST', '/tokens', { key, body: { token_intent_id: first }, headers: traced('trace-convert') });
    expect(token.status).toBe(201);
    const made = await t.call('POST', '/tokenize', { key, body: { card: { token_intent_id: second } }, headers: traced('trace-tokenize') });
    expect(made.status).toBe(200);
    const converted = await raised(t, 'token-intent.converted');
    expect(converted.map((e) => [e.trace_id, e.data])).toEqual([
      ['trace-convert', expect.objectContaining({ token_intent: { id: first, type: 'card' }, token: { id: token.body.id, type: 'card' } })],
      ['trace-tokenize', expect.objectContaining({ token_intent: { id: second, type: 'card' }, token: { id: made.body.card.id, type: 'card' } })],
    ]);
    expect((await raised(t, 'token.created')).map((e) => e.trace_id)).toEqual(['trace-convert', 'trace-tokenize']);
  });

  it('raises the conversion inside a BETA transaction at its commit, and nothing on rollback', async () => {
    t = await engineKeeping(['token-intent.converted']);
    const key = await intentsKey(t);
    const rolledIntent = await intentOf(t, key);
    const rolled = await openTransaction(t, key);
    expect((await inTransaction(t, key, rolled)('POST', '/tokens', { token_intent_id: rolledIntent })).status).toBe(201);
    expect((await t.call('POST', `/transactions/${rolled}/rollback`, { key })).status).toBe(200);
    expect(await raised(t)).toEqual([]);

    const committedIntent = await intentOf(t, key);
    const tx = await openTransaction(t, key);
    const token = await inTransaction(t, key, tx)('POST', '/tokens', { token_intent_id: committedIntent }, traced('trace-staged'));
    expect(token.status).toBe(201);
    expect(await raised(t)).toEqual([]);
    expect((await t.call('POST', `/transactions/${tx}/commit`, { key })).status).toBe(200);
    const [converted] = await raised(t);
    expect(converted).toMatchObject({ type: 'token-intent.converted', trace_id: 'trace-staged', data: { token_intent: { id: committedIntent }, token: { id: token.body.id } } });
  });
});
