import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Token intents (docs/api.md, Token intents): create, read and delete; conversion in POST /tokens and /tokenize;
 * enlisting in transactions; `token_intent:` in proxy expressions; every error row of vendor-surfaces.md §4.
 */
let t: TestEngine;
/** A back end: every token permission (revealed) and every token-intent permission. */
let backend: string;
/** A browser's key: a public application that may only create intents (and tokens). */
let browser: string;
let echo: string;

const PAN = '4242424242424242';
const CARD = { number: PAN, expiration_month: 12, expiration_year: 2040, cvc: '123' };
const DAY_MS = 24 * 60 * 60 * 1000;

async function application(body: Record<string, unknown>): Promise<string> {
  const res = await t.call('POST', '/applications', { key: t.managementKey, body });
  expect(res.status, res.text).toBe(201);
  return res.body.key as string;
}

async function intent(data: unknown = CARD, key = backend, type = 'card'): Promise<string> {
  const res = await t.call('POST', '/token-intents', { key, body: { type, data } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  echo = t.engine.echoUrl!;
  backend = await application({
    name: 'intents back end',
    type: 'private',
    permissions: ['token-intent:create', 'token-intent:read', 'token-intent:delete'],
    rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:update', 'token:use'] }],
  });
  browser = await application({ name: 'checkout page', type: 'public', permissions: ['token-intent:create', 'token:create'] });
});
afterAll(() => t.stop());

describe('POST /token-intents', () => {
  it('answers 201 with the non-secret card details, a 24 h expiry and no data', async () => {
    const res = await t.call('POST', '/token-intents', { key: browser, body: { type: 'card', data: CARD } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      type: 'card',
      card: { bin: '42424242', last4: '4242', expiration_month: 12, expiration_year: 2040, brand: 'visa' },
      _extras: { network_token_ids: [] },
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.fingerprint).toEqual(expect.any(String));
    expect(res.body).not.toHaveProperty('data');
    expect(res.text).not.toContain(PAN);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(DAY_MS);
  });

  it('gives a bank intent its routing number and the account number last 4', async () => {
    const res = await t.call('POST', '/token-intents', { key: backend, body: { type: 'bank', data: { routing_number: '021000021', account_number: '1234567890' } } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.bank).toEqual({ routing_number: '021000021', account_number_last4: '7890' });
    expect(res.text).not.toContain('1234567890');
  });

  it('refuses invalid data with the field named, as POST /tokens does', async () => {
    const res = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card', data: { ...CARD, number: '4242424242424241' } } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['data.number']);
  });

  it('refuses a missing type, and token fields that are not part of an intent', async () => {
    expect((await t.call('POST', '/token-intents', { key: backend, body: { data: CARD } })).status).toBe(400);
    const res = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card', data: CARD, metadata: { a: 'b' }, containers: ['/x/'] } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['containers', 'metadata']);
  });

  it('refuses encrypted payloads for now (400 naming the field)', async () => {
    const res = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card', encrypted: 'eyJhbGciOi.x.y.z.w' } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['encrypted']);
  });

  it('answers 422 for network_token, which Tokenbench does not have', async () => {
    const res = await t.call('POST', '/token-intents', { key: backend, body: { type: 'network_token', data: CARD } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain('network_token');
  });

  it('answers 401 without a key and 403 without token-intent:create', async () => {
    expect((await t.call('POST', '/token-intents', { body: { type: 'card', data: CARD } })).status).toBe(401);
    const reader = await application({ name: 'reader', type: 'private', permissions: ['token:read'] });
    expect((await t.call('POST', '/token-intents', { key: reader, body: { type: 'card', data: CARD } })).status).toBe(403);
  });

  it("lets the first start's back-end key read, convert and delete the intents a browser made", async () => {
    const read = await t.call('GET', `/token-intents/${await intent(CARD, browser)}`, { key: t.privateKey });
    expect(read.status, read.text).toBe(200);
    expect(read.body.card.last4).toBe('4242');
    const converted = await t.call('POST', '/tokens', { key: t.privateKey, body: { token_intent_id: read.body.id } });
    expect(converted.status, converted.text).toBe(201);
    expect((await t.call('DELETE', `/token-intents/${await intent(CARD, browser)}`, { key: t.privateKey })).status).toBe(204);
  });

  it('answers a repeated request with the same idempotency key with the same intent', async () => {
    const headers = { 'BT-IDEMPOTENCY-KEY': 'intent-once' };
    const first = await t.call('POST', '/token-intents', { key: backend, headers, body: { type: 'card', data: CARD } });
    const again = await t.call('POST', '/token-intents', { key: backend, headers, body: { type: 'card', data: CARD } });
    expect(first.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
  });

  it('keeps the data out of history: the entry shows the type and [redacted]', async () => {
    const id = await intent();
    await t.engine.history.flush();
    const entries = (await t.engine.history.list(20)).filter((e) => e.path === '/token-intents');
    expect(entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(entries)).not.toContain(PAN);
    expect(entries[0].request_body).toEqual({ type: 'card', data: '[redacted]' });
    expect(id).toBeTruthy();
  });
});

describe('GET and DELETE /token-intents/{id}', () => {
  it('reads an intent, deletes it (204), and then answers 404 to both', async () => {
    const id = await intent();
    const read = await t.call('GET', `/token-intents/${id}`, { key: backend });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, type: 'card', card: { last4: '4242' } });
    expect(read.text).not.toContain(PAN);
    expect((await t.call('DELETE', `/token-intents/${id}`, { key: backend })).status).toBe(204);
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(404);
    expect((await t.call('DELETE', `/token-intents/${id}`, { key: backend })).status).toBe(404);
  });

  it('answers 401, 403 without token-intent:read / delete, and 404 for an unknown id', async () => {
    const id = await intent();
    expect((await t.call('GET', `/token-intents/${id}`)).status).toBe(401);
    expect((await t.call('DELETE', `/token-intents/${id}`)).status).toBe(401);
    expect((await t.call('GET', `/token-intents/${id}`, { key: browser })).status).toBe(403);
    expect((await t.call('DELETE', `/token-intents/${id}`, { key: browser })).status).toBe(403);
    expect((await t.call('GET', '/token-intents/8b1f0a52-0000-4000-8000-000000000000', { key: backend })).status).toBe(404);
  });
});

describe('conversion', () => {
  it('POST /tokens with token_intent_id makes the token (CVC dropped), consumes the intent, and a second try is a 400', async () => {
    const id = await intent();
    const made = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id, metadata: { order: '7' } } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ type: 'card', containers: ['/pci/high/'], metadata: { order: '7' }, _extras: { deduplicated: false } });
    expect(made.body.data).toEqual({ number: PAN, expiration_month: 12, expiration_year: 2040 });
    const intentView = await t.call('GET', `/token-intents/${id}`, { key: backend });
    expect(intentView.status).toBe(404);
    const again = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id } });
    expect(again.status).toBe(400);
    expect(again.body.detail).toContain(id);
  });

  it('gives the token the fingerprint the intent showed', async () => {
    const created = await t.call('POST', '/token-intents', { key: browser, body: { type: 'card', data: { number: '5555555555554444', expiration_month: 1, expiration_year: 2041 } } });
    const made = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: created.body.id } });
    expect(made.body.fingerprint).toBe(created.body.fingerprint);
  });

  it('refuses type or data beside token_intent_id, and an unknown intent, with a 400', async () => {
    const id = await intent();
    const both = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id, type: 'card' } });
    expect(both.status).toBe(400);
    expect(Object.keys(both.body.errors)).toEqual(['type']);
    const unknown = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: '8b1f0a52-0000-4000-8000-000000000001' } });
    expect(unknown.status).toBe(400);
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(200);
  });

  it('needs token:create on the container, and a refusal leaves the intent', async () => {
    const id = await intent();
    const readOnly = await application({ name: 'reader', type: 'private', permissions: ['token:read'] });
    expect((await t.call('POST', '/tokens', { key: readOnly, body: { token_intent_id: id } })).status).toBe(403);
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(200);
  });

  it('deduplicates onto the token of the same fingerprint and container, merging the intent data in', async () => {
    const card = { number: '4000056655665556', expiration_month: 3, expiration_year: 2039 };
    const first = await t.call('POST', '/tokens', { key: backend, body: { type: 'card', data: card, deduplicate_token: true } });
    const id = await intent({ ...card, expiration_month: 4, cvc: '999' });
    const made = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id, deduplicate_token: true } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ id: first.body.id, _extras: { deduplicated: true } });
    expect(made.body.data).toEqual({ ...card, expiration_month: 4 });
    expect((await t.call('GET', `/tokens/${first.body.id}`, { key: backend })).body.data).toEqual({ ...card, expiration_month: 4 });
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(404);
  });

  it('converts intents inside a POST /tokenize body, all or nothing', async () => {
    const id = await intent();
    const res = await t.call('POST', '/tokenize', { key: backend, body: { card: { token_intent_id: id }, note: 'hi' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.card).toMatchObject({ type: 'card', data: { number: PAN } });
    expect(res.body.card.data).not.toHaveProperty('cvc');
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(404);

    const kept = await intent();
    const failed = await t.call('POST', '/tokenize', { key: backend, body: [{ token_intent_id: kept }, { type: 'card', data: { number: '1' } }] });
    expect(failed.status).toBe(400);
    expect((await t.call('GET', `/token-intents/${kept}`, { key: backend })).status).toBe(200);
    const twice = await t.call('POST', '/tokenize', { key: backend, body: [{ token_intent_id: kept }, { token_intent_id: kept }] });
    expect(twice.status).toBe(400);
    expect((await t.call('GET', `/token-intents/${kept}`, { key: backend })).status).toBe(200);
  });

  it('keeps the conversion in history by the intent id, never the data', async () => {
    const id = await intent();
    await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id, metadata: { order: '9' } } });
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(5)).find((e) => e.path === '/tokens');
    expect(entry?.request_body).toEqual({ token_intent_id: id, metadata: { order: '9' } });
    expect(JSON.stringify(entry)).not.toContain(PAN);
  });

  it('enlists in a transaction: gone while it is open, back after a rollback, gone for good after a commit', async () => {
    const id = await intent();
    const tx = (await t.call('POST', '/transactions', { key: backend })).body.id as string;
    const staged = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id }, headers: { 'BT-TRANSACTION-ID': tx } });
    expect(staged.status, staged.text).toBe(201);
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(404);
    expect((await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id } })).status).toBe(400);
    expect((await t.call('POST', `/transactions/${tx}/rollback`, { key: backend })).status).toBe(200);
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(200);

    const tx2 = (await t.call('POST', '/transactions', { key: backend })).body.id as string;
    const made = await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: id }, headers: { 'BT-TRANSACTION-ID': tx2 } });
    expect((await t.call('POST', `/transactions/${tx2}/commit`, { key: backend })).status).toBe(200);
    expect((await t.call('GET', `/token-intents/${id}`, { key: backend })).status).toBe(404);
    expect((await t.call('GET', `/tokens/${made.body.id}`, { key: backend })).body.data.number).toBe(PAN);
  });
});

describe('token_intent: in reactor args', () => {
  it('gives a react the intent\'s card in its args, and a gone intent is a 400', async () => {
    const id = await intent();
    const reactor = await t.call('POST', '/reactors', {
      key: t.managementKey,
      body: { name: 'intent reader', code: 'module.exports = async (req) => ({ raw: { last4: req.args.card.number.slice(-4), cvc: req.args.card.cvc } });' },
    });
    expect(reactor.status, reactor.text).toBe(201);
    const res = await t.call('POST', `/reactors/${reactor.body.id}/react`, { key: backend, body: { args: { card: `{{ token_intent: ${id} | json: '$.data' }}` } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ raw: { last4: '4242', cvc: '123' } });

    await t.call('DELETE', `/token-intents/${id}`, { key: backend });
    const gone = await t.call('POST', `/reactors/${reactor.body.id}/react`, { key: backend, body: { args: { card: `{{ token_intent: ${id} | json: '$.data' }}` } } });
    expect(gone.status).toBe(400);
    expect(JSON.stringify(gone.body)).toContain(id);
  });
});

describe('token_intent: in proxy expressions', () => {
  it('detokenizes an intent in an ephemeral proxy body, and a gone intent is a 400', async () => {
    const id = await intent();
    const res = await t.call('POST', '/proxy', {
      key: backend,
      headers: { 'BT-PROXY-URL': echo },
      body: { pan: `{{ token_intent: ${id} | json: '$.data.number' }}`, last4: `{{ token_intent: ${id} | json: '$.card.last4' }}` },
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.body.body)).toEqual({ pan: PAN, last4: '4242' });
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(5)).find((e) => e.path.startsWith('/proxy'));
    expect(JSON.stringify(entry)).not.toContain(PAN);

    await t.call('DELETE', `/token-intents/${id}`, { key: backend });
    const gone = await t.call('POST', '/proxy', { key: backend, headers: { 'BT-PROXY-URL': echo }, body: { pan: `{{ token_intent: ${id} | json: '$.data.number' }}` } });
    expect(gone.status).toBe(400);
    expect(JSON.stringify(gone.body)).toContain(id);
  });

  it('detokenizes an intent in a pre-configured proxy body', async () => {
    const id = await intent();
    const proxy = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'intents', destination_url: echo, require_auth: true } });
    expect(proxy.status, proxy.text).toBe(201);
    const res = await t.call('POST', '/proxy', {
      key: backend,
      headers: { 'BT-PROXY-KEY': proxy.body.key },
      body: { cvc: `{{ token_intent: ${id} | json: '$.data.cvc' }}` },
    });
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.body.body)).toEqual({ cvc: '123' });
  });

  it('checks access as for a token in the type’s default container', async () => {
    const id = await intent();
    const general = await application({
      name: 'general only',
      type: 'private',
      rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:use'] }],
    });
    const res = await t.call('POST', '/proxy', { key: general, headers: { 'BT-PROXY-URL': echo }, body: { pan: `{{ token_intent: ${id} | json: '$.data.number' }}` } });
    expect(res.status).toBe(403);
  });
});

describe('live events', () => {
  it('tells the live feed of each create, conversion and delete, by id only', async () => {
    const heard: { id: string; change: string }[] = [];
    const listener = (change: { id: string; change: string }) => heard.push(change);
    t.engine.events.on('tokenIntent', listener);
    try {
      const converted = await intent();
      await t.call('POST', '/tokens', { key: backend, body: { token_intent_id: converted } });
      const deleted = await intent();
      await t.call('DELETE', `/token-intents/${deleted}`, { key: backend });
      expect(heard).toEqual([
        { id: converted, change: 'created' },
        { id: converted, change: 'converted' },
        { id: deleted, change: 'created' },
        { id: deleted, change: 'deleted' },
      ]);
    } finally {
      t.engine.events.off('tokenIntent', listener);
    }
  });
});

describe('GET /permissions', () => {
  it('lists the token-intent permissions with their application types', async () => {
    const res = await t.call('GET', '/permissions', { key: t.managementKey });
    const byType = Object.fromEntries((res.body as { type: string; application_types: string[] }[]).map((p) => [p.type, p.application_types]));
    expect(byType['token-intent:create']).toEqual(['public', 'private']);
    expect(byType['token-intent:read']).toEqual(['private']);
    expect(byType['token-intent:delete']).toEqual(['private']);
  });
});
