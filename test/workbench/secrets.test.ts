import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callMethod } from '../../electron/engine';
import type { CollectionsView, SavedRequest } from '../../shared/workbench/collection-contract';
import { exchangeSchema } from '../../shared/workbench/composer-contract';
import { historyListSchema } from '../../shared/workbench/history-contract';
import { PAGE_HEADER } from '../../shared/workbench/transport';
import { filesIn, startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Credentials never sit in a saved request's file: they move into the engine's secret store (sealed like remote
 * targets' keys), the file keeps a `${secret:NAME}` reference, and the engine puts the value in only as the request
 * leaves. History, its HAR export, the page and the data folder see the reference, never the value.
 */
const STRIPE_KEY = 'sk_live_51HqAbCdEfGhIjKlMnOpQrStUv';
const VAULT_KEY = 'key_live_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const COOKIE = 'session=c0ffee5e55i0n1d; theme=dark';
const API_TOKEN = 'tok_4c5d6e7f8a9b0c1d2e3f';
const VALUES = [STRIPE_KEY, VAULT_KEY, COOKIE, API_TOKEN];

let t: TestEngine;
/** The engine's log lines: a value must not reach them either. */
let logs: string[];
beforeEach(async () => {
  logs = [];
  t = await startTestEngine({ echoPort: 0, workbenchRoutes: true, log: (line) => logs.push(line) });
});
afterEach(() => t.stop());

const REQUEST: SavedRequest = {
  kind: 'proxy',
  method: 'POST',
  target: 'https://api.stripe.com/v1/charges',
  headers: [
    { name: 'Authorization', value: `Bearer ${STRIPE_KEY}`, enabled: true },
    { name: 'BT-API-KEY', value: VAULT_KEY, enabled: true },
    { name: 'Cookie', value: COOKIE, enabled: false },
    { name: 'X-Api-Token', value: API_TOKEN, enabled: true },
    { name: 'X-Order', value: 'o-1', enabled: true },
    { name: 'BT-IDEMPOTENCY-KEY', value: 'idem-1', enabled: true },
  ],
  service: { transaction: '', trace: '', keepAlive: '', connection: '' },
  bodyMode: 'json',
  body: '{"amount": 10}',
};

type Call = (name: string, request?: unknown) => Promise<any>;
const call: Call = (name, request = {}) => callMethod(t.engine.workbench, name as 'listSecrets', request) as Promise<any>;
const fileOf = (collection: string, name: string) => join(t.engine.collectionsFolder, collection, `${name}.request.json`);
const headersOf = (view: CollectionsView, collection: string, name: string) =>
  view.collections.find((c) => c.name === collection)!.requests.find((r) => r.name === name)!.request!.headers;

describe('saving a request', () => {
  it('moves its credentials into Secrets: the file keeps a reference, never the value', async () => {
    const saved = await call('saveRequest', { collection: 'Payments', name: 'Charge a card', request: REQUEST });
    const text = readFileSync(fileOf('Payments', 'Charge a card'), 'utf8');
    for (const value of VALUES) expect(text).not.toContain(value);
    expect(headersOf(saved, 'Payments', 'Charge a card')).toEqual([
      { name: 'Authorization', value: 'Bearer ${secret:payments-charge-a-card-authorization}', enabled: true },
      { name: 'BT-API-KEY', value: '${secret:payments-charge-a-card-bt-api-key}', enabled: true },
      { name: 'Cookie', value: '${secret:payments-charge-a-card-cookie}', enabled: false },
      { name: 'X-Api-Token', value: '${secret:payments-charge-a-card-x-api-token}', enabled: true },
      { name: 'X-Order', value: 'o-1', enabled: true },
      // An idempotency key names a request; it is no credential.
      { name: 'BT-IDEMPOTENCY-KEY', value: 'idem-1', enabled: true },
    ]);
    expect(saved.moved_aside).toEqual([
      { header: 'Authorization', secret: 'payments-charge-a-card-authorization' },
      { header: 'BT-API-KEY', secret: 'payments-charge-a-card-bt-api-key' },
      { header: 'Cookie', secret: 'payments-charge-a-card-cookie' },
      { header: 'X-Api-Token', secret: 'payments-charge-a-card-x-api-token' },
    ]);
    // The reference syntax holds no {{, which the proxy and Liquid would read as an expression.
    expect(text).not.toContain('{{');
    // History records the save with the move, by the secrets' names; a save that moves nothing says nothing of it.
    await t.engine.history.flush();
    const [moved] = await t.engine.history.list(10);
    expect(moved).toMatchObject({ kind: 'workbench', method: 'SAVE', path: '/collections/Payments/Charge a card', status: 200 });
    expect((moved.details as { change: { summary: string } }).change.summary).toBe(
      'Saved request “Charge a card” of collection “Payments”; moved 4 credentials into Secrets: payments-charge-a-card-authorization, payments-charge-a-card-bt-api-key, payments-charge-a-card-cookie, payments-charge-a-card-x-api-token',
    );
    await call('saveRequest', { collection: 'Payments', name: 'Plain', request: { ...REQUEST, headers: [] } });
    await t.engine.history.flush();
    const [plain] = await t.engine.history.list(10);
    expect((plain.details as { change: { summary: string } }).change.summary).toBe('Saved request “Plain” of collection “Payments”');
    for (const value of VALUES) expect(JSON.stringify(await t.engine.history.list(10))).not.toContain(value);

    const secrets = await call('listSecrets');
    expect(secrets.map((s: { name: string }) => s.name)).toEqual([
      'payments-charge-a-card-authorization',
      'payments-charge-a-card-bt-api-key',
      'payments-charge-a-card-cookie',
      'payments-charge-a-card-x-api-token',
    ]);
    expect(secrets[0]).toMatchObject({ used_by: [{ collection: 'Payments', name: 'Charge a card' }], created_at: expect.any(String), updated_at: expect.any(String) });
    for (const value of VALUES) expect(JSON.stringify(secrets)).not.toContain(value);
    expect(await call('revealSecret', { name: 'payments-charge-a-card-authorization' })).toEqual({ value: STRIPE_KEY });
    expect(await call('revealSecret', { name: 'payments-charge-a-card-cookie' })).toEqual({ value: COOKIE });
  });

  it('reuses the name of a value already stored, and gives another value under a taken name its own', async () => {
    await call('setSecret', { name: 'stripe-live', value: STRIPE_KEY });
    const one = { ...REQUEST, headers: [{ name: 'Authorization', value: `Bearer ${STRIPE_KEY}`, enabled: true }] };
    expect(headersOf(await call('saveRequest', { collection: 'Payments', name: 'Charge', request: one }), 'Payments', 'Charge')[0].value).toBe(
      'Bearer ${secret:stripe-live}',
    );
    const other = { ...REQUEST, headers: [{ name: 'Authorization', value: 'Bearer sk_test_other_value_123', enabled: true }] };
    await call('saveRequest', { collection: 'Payments', name: 'Refund', request: other });
    const again = { ...REQUEST, headers: [{ name: 'Authorization', value: 'Bearer sk_test_third_value_456', enabled: true }] };
    const view = await call('saveRequest', { collection: 'Payments', name: 'Refund', request: again, overwrite: true });
    expect(headersOf(view, 'Payments', 'Refund')[0].value).toBe('Bearer ${secret:payments-refund-authorization-2}');
    expect((await call('listSecrets')).map((s: { name: string }) => s.name)).toEqual(['payments-refund-authorization', 'payments-refund-authorization-2', 'stripe-live']);
  });

  it('stores nothing when the file cannot be written', async () => {
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: { ...REQUEST, headers: [] } });
    await expect(call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST })).rejects.toMatchObject({ status: 409 });
    await expect(call('saveRequest', { collection: '..', name: 'x', request: REQUEST })).rejects.toMatchObject({ status: 400 });
    expect(await call('listSecrets')).toEqual([]);
  });

  it('lists a file that already holds a key with a warning, live too, and moves the key on its next save', async () => {
    const updates: CollectionsView[] = [];
    const stop = t.engine.workbench.live((event) => {
      if (event.type === 'update' && event.collections) updates.push(event.collections);
    });
    try {
      mkdirSync(join(t.engine.collectionsFolder, 'From git'), { recursive: true });
      writeFileSync(fileOf('From git', 'Teammate'), JSON.stringify(REQUEST));
      const warned = { name: 'Teammate', secrets_in_plain_text: ['Authorization', 'BT-API-KEY', 'Cookie', 'X-Api-Token'] };
      await vi.waitFor(() => expect(updates.at(-1)?.collections[0].requests[0]).toMatchObject(warned));
      expect((await call('listCollections')).collections[0].requests[0]).toMatchObject(warned);

      const saved = await call('saveRequest', { collection: 'From git', name: 'Teammate', request: REQUEST, overwrite: true });
      expect(saved.collections[0].requests[0].secrets_in_plain_text).toEqual([]);
      for (const value of VALUES) expect(readFileSync(fileOf('From git', 'Teammate'), 'utf8')).not.toContain(value);
    } finally {
      stop();
    }
  });
});

describe('importing many credentials beside many secrets', () => {
  it('holds up no other client over a second (a stall probe)', async () => {
    for (let i = 0; i < 200; i++) await call('setSecret', { name: `kept-${i}`, value: `kept-value-${i}-0123456789` });
    const entries = Array.from({ length: 100 }, (_, i) => ({
      request: { method: 'GET', url: `https://api${i}.example.com/v1/me`, headers: [{ name: 'Authorization', value: `Bearer tok_${i}_abcdef` }, { name: 'X-Api-Key', value: `key_${i}_abcdef` }] },
    }));
    let importing = true;
    const imported = t.workbench('importRequests', { text: JSON.stringify({ log: { entries } }) }).finally(() => (importing = false));
    const waits: number[] = [];
    // Probes one after another for as long as the import runs: each must be answered within the house's bound.
    while (importing) {
      const started = performance.now();
      const probe = await request(`${t.url}/tokens?size=1`, { headers: { 'BT-API-KEY': t.privateKey }, signal: AbortSignal.timeout(1000) });
      await probe.body.text();
      expect(probe.statusCode).toBe(200);
      waits.push(performance.now() - started);
    }
    const answer = await imported;
    expect(answer.status).toBe(200);
    expect(answer.body.requests.flatMap((r: { moved_aside: unknown[] }) => r.moved_aside)).toHaveLength(200);
    expect(waits.length).toBeGreaterThan(0);
  });
});

describe('sending a request that refers to secrets', () => {
  it('resolves them in the engine; history, its HAR, the page and the data folder see only the reference', async () => {
    await call('setSecret', { name: 'stripe-test', value: STRIPE_KEY });
    await call('setSecret', { name: 'api-token', value: API_TOKEN });
    const application_id = t.engine.bootstrapKeys!.private.application_id;
    const reply = exchangeSchema.parse(
      await call('sendRequest', {
        id: 'with-secrets',
        application_id,
        method: 'POST',
        path: '/proxy/v1/charges',
        headers: [
          ['BT-PROXY-URL', t.engine.echoUrl!],
          ['Authorization', 'Bearer ${secret:stripe-test}'],
          ['X-Signed', 'v1=${secret:api-token};t=1'],
          ['Content-Type', 'application/json'],
        ],
        body: '{"amount": 10}',
      }),
    );
    if (reply.outcome.kind !== 'response') throw new Error(reply.outcome.kind);
    expect(reply.outcome.status).toBe(200);
    // The echo destination received the values: it shows what left the proxy. The page gets its answer with the
    // references put back, and the request as it left with them.
    const echoed = JSON.parse(Buffer.from(reply.outcome.body_base64, 'base64').toString('utf8'));
    expect(echoed.headers.authorization).toBe('Bearer ${secret:stripe-test}');
    expect(echoed.headers['x-signed']).toBe('v1=${secret:api-token};t=1');
    expect(reply.request.headers).toContainEqual(['Authorization', 'Bearer ${secret:stripe-test}']);
    expect(reply.entry?.request_headers).toContainEqual(['Authorization', 'Bearer ${secret:stripe-test}']);
    expect(reply.entry?.proxy?.outbound?.headers).toContainEqual(['X-Signed', 'v1=${secret:api-token};t=1']);

    await t.engine.history.flush();
    const history = historyListSchema.parse((await t.workbench('listHistory', { limit: 500 })).body);
    const har = (await t.workbench('exportHar', {})).body;
    for (const value of [STRIPE_KEY, API_TOKEN]) {
      expect(JSON.stringify(reply)).not.toContain(value);
      expect(JSON.stringify(history)).not.toContain(value);
      expect(JSON.stringify(har)).not.toContain(value);
      expect(logs.join('\n')).not.toContain(value);
    }
    await t.engine.stop();
    // Nothing in the data folder holds a value: the vault keeps it sealed, history the reference (its -wal included).
    for (const file of filesIn(t.dataDir!)) {
      const bytes = readFileSync(file);
      for (const value of [STRIPE_KEY, API_TOKEN]) expect(bytes.includes(value), `${value} in ${file}`).toBe(false);
    }
  });

  it('refuses a reference to a secret that is not set, naming it and where to set it', async () => {
    const send = (value: string) =>
      call('sendRequest', { id: 'x', application_id: t.engine.bootstrapKeys!.private.application_id, method: 'GET', path: '/tokens', headers: [['X-Api-Token', value]], body: null });
    await expect(send('${secret:nowhere}')).rejects.toMatchObject({ status: 400, detail: expect.stringMatching(/“nowhere”.*X-Api-Token.*in Settings, under Secrets/) });
    await expect(send('${secret:not a name}')).rejects.toMatchObject({ status: 400, detail: expect.stringContaining('not a secret name') });
    // Over HTTP: the contract's problem.
    const answer = await t.workbench('sendRequest', { id: 'y', application_id: t.engine.bootstrapKeys!.private.application_id, method: 'GET', path: '/tokens', headers: [['A', '${secret:nowhere}']], body: null });
    expect([answer.status, answer.headers['content-type']]).toEqual([400, expect.stringMatching(/problem\+json/)]);
  });
});

describe('the secrets in Settings', () => {
  const settings = (name: string, request: unknown) => t.workbench(name, request, { headers: { [PAGE_HEADER]: 'settings' } });
  const newest = async () => {
    await t.engine.history.flush();
    return historyListSchema.parse((await t.workbench('listHistory', { limit: 1 })).body)[0];
  };

  it('are set, replaced, revealed and deleted by name, each recorded in history without its value', async () => {
    const set = await settings('setSecret', { name: 'stripe-test', value: `  ${STRIPE_KEY}\n` });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ name: 'stripe-test', used_by: [] });
    expect(await newest()).toMatchObject({ kind: 'workbench', method: 'CREATE', path: '/secrets/stripe-test', workbench_page: 'settings', change: { summary: 'Set secret “stripe-test”' } });

    await settings('setSecret', { name: 'stripe-test', value: 'sk_test_replacement_value' });
    expect((await newest()).change?.summary).toBe('Replaced secret “stripe-test”');

    const revealed = await settings('revealSecret', { name: 'stripe-test' });
    expect(revealed.body).toEqual({ value: 'sk_test_replacement_value' });
    expect(revealed.headers['cache-control']).toBe('no-store');
    expect(await newest()).toMatchObject({ method: 'REVEAL', path: '/secrets/stripe-test', reveal: { target: 'secret', name: 'stripe-test' } });

    expect((await settings('revealSecret', { name: 'nowhere' })).status).toBe(404);
    expect(await newest()).toMatchObject({ method: 'REVEAL', status: 404 });

    expect((await settings('deleteSecret', { name: 'stripe-test' })).body).toEqual({ deleted: true });
    expect((await newest()).change?.summary).toBe('Deleted secret “stripe-test”');
    expect((await settings('deleteSecret', { name: 'stripe-test' })).body).toEqual({ deleted: false });
    expect((await t.workbench('listSecrets', {})).body).toEqual([]);

    await t.engine.history.flush();
    const all = JSON.stringify((await t.workbench('listHistory', { limit: 500 })).body);
    expect(all).not.toContain(STRIPE_KEY);
    expect(all).not.toContain('sk_test_replacement_value');
  });

  it('refuse a name or a value that could not go in a header, without echoing the value', async () => {
    for (const name of ['', 'has space', '-leading', 'a'.repeat(65), 'semi;colon']) {
      const answer = await settings('setSecret', { name, value: 'v' });
      expect(answer.status, name).toBe(400);
    }
    for (const value of ['', '   ', 'line\nbreak-secret-xyz', 'nul\u0000secret-xyz', 'emoji-secret-xyz-😀']) {
      const answer = await settings('setSecret', { name: 'ok', value });
      expect(answer.status, JSON.stringify(value)).toBe(400);
      expect(answer.text).not.toContain('secret-xyz');
    }
    expect((await t.workbench('listSecrets', {})).body).toEqual([]);
  });
});
