import { type BasisTheory, type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * Logs (docs/api.md, Logs) driven by the vendor's node SDK, unchanged: who did what to which entity, derived from the
 * requests the engine handled, never a value; filters, the SDK's auto-paging, the cursor shape, and their errors.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let backend: BasisTheoryClient;
let backendId: string;

const CARD_NUMBER = '4242424242424242';

/** Every log line, through the SDK's auto-paging (it asks for page+1 until a page is empty). */
async function allLogs(request: BasisTheory.LogsListRequest = {}): Promise<BasisTheory.Log[]> {
  const lines: BasisTheory.Log[] = [];
  for await (const line of await management.logs.list(request)) lines.push(line);
  return lines;
}

/** The engine records a request once its response is out: the lines of the calls just made are there a moment later. */
async function logsOnceIn(request: BasisTheory.LogsListRequest, count: number): Promise<BasisTheory.Log[]> {
  for (let tries = 0; ; tries++) {
    const lines = await allLogs(request);
    if (lines.length >= count || tries === 50) return lines;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true, echoPort: 0 });
  management = nodeSdk(t, t.managementKey);
  backend = nodeSdk(t, t.privateKey);
  backendId = (await backend.applications.getByKey()).id!;
});
afterAll(() => t.stop());

describe('the node SDK (5.7.0) on /logs', () => {
  let card: string;
  let bank: string;
  let plain: string;
  let app: string;
  let since: Date;

  beforeAll(async () => {
    // The backend's own GET /applications/key (before this block) is the first line.
    since = new Date(Date.now() - 1000);
    card = (await backend.tokens.create({ type: 'card', data: { number: CARD_NUMBER, expiration_month: 12, expiration_year: 2030 } })).id!;
    bank = (await backend.tokens.create({ type: 'bank', data: { routing_number: '021000021', account_number: '1234567890' } })).id!;
    plain = (await backend.tokens.create({ type: 'token', data: 'a secret note' })).id!;
    await backend.tokens.get(card);
    await backend.tokens.update(plain, { data: 'another secret note' });
    await backend.tokens.delete(bank);
    app = (await management.applications.create({ name: 'logged', type: 'private', permissions: ['token:read'] })).id!;
    await management.applications.get(app);
    await management.applications.delete(app);
  });

  it('lists who did what to which entity, newest first, as the SDK reads it', async () => {
    const lines = await logsOnceIn({ startDate: since }, 10);
    const seen = lines.map((l) => [l.entityType, l.entityId, l.operation, l.actorId]);
    expect(seen).toEqual([
      ['application', app, 'delete', expect.any(String)],
      ['application', app, 'read', expect.any(String)],
      ['application', app, 'create', expect.any(String)],
      ['bank', bank, 'delete', backendId],
      ['token', plain, 'update', backendId],
      ['card', card, 'read', backendId],
      ['token', plain, 'create', backendId],
      ['bank', bank, 'create', backendId],
      ['card', card, 'create', backendId],
      ['application', backendId, 'read', backendId],
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({ actorType: 'application', tenantId: expect.any(String), id: expect.any(String), message: expect.any(String) });
      expect(line.createdAt).toBeInstanceOf(Date);
    }
    expect(lines.find((l) => l.entityId === card && l.operation === 'read')!.message).toBe('Token retrieved');
  });

  it('never holds a value: no token data, no key', async () => {
    const raw = await t.call('GET', '/logs?size=100', { key: t.managementKey });
    expect(raw.status).toBe(200);
    for (const secret of [CARD_NUMBER, '1234567890', 'secret note', t.privateKey, t.managementKey]) expect(raw.text).not.toContain(secret);
  });

  it('filters by entity type, entity id and dates', async () => {
    await logsOnceIn({ startDate: since }, 10);
    expect((await allLogs({ entityType: 'card' })).map((l) => [l.entityId, l.operation])).toEqual([
      [card, 'read'],
      [card, 'create'],
    ]);
    expect((await allLogs({ entityId: plain })).map((l) => l.operation)).toEqual(['update', 'create']);
    expect(await allLogs({ entityType: 'bank', entityId: card })).toEqual([]);
    expect(await allLogs({ startDate: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await allLogs({ endDate: since })).toEqual([]);
    expect((await allLogs({ startDate: since, endDate: new Date(Date.now() + 60_000) })).length).toBe(10);
  });

  it('pages by page and size (v1) and by start (the cursor shape), past the end with an empty page', async () => {
    await logsOnceIn({ startDate: since }, 10);
    const first = await t.call('GET', '/logs?page=1&size=4', { key: t.managementKey });
    expect(first.body.pagination).toEqual({ total_items: 10, page_number: 1, page_size: 4, total_pages: 3 });
    expect(first.body.data).toHaveLength(4);
    const past = await t.call('GET', '/logs?page=9&size=4', { key: t.managementKey });
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);

    const walked: string[] = [];
    let start = '';
    for (let pages = 0; pages < 10; pages++) {
      const page = await t.call('GET', `/logs/?start=${start}&size=4`, { key: t.managementKey });
      expect(page.status).toBe(200);
      expect(page.body.pagination.page_size).toBe(4);
      walked.push(...page.body.data.map((l: { id: string }) => l.id));
      if (page.body.pagination.next === null) break;
      start = page.body.pagination.next;
    }
    expect(walked).toEqual((await allLogs()).map((l) => l.id));
  });

  it('lists the entity types', async () => {
    const types = await management.logs.getEntityTypes();
    expect(types).toEqual(expect.arrayContaining([{ displayName: 'Card', value: 'card' }, { displayName: 'Token Intent', value: 'token_intent' }]));
    expect(types.map((t) => t.value)).toEqual(['application', 'bank', 'card', 'proxy', 'reactor', 'tenant', 'token', 'token_intent', 'webhook']);
  });

  it('is not emptied by clearing History', async () => {
    await logsOnceIn({ startDate: since }, 10);
    expect((await t.workbench('clearHistory')).status).toBe(200);
    expect((await allLogs({ startDate: since })).length).toBeGreaterThanOrEqual(10);
  });
});

describe('the lines of the other surfaces', () => {
  it('logs proxies (and their calls), tokenized tokens and token intents', async () => {
    const since = new Date();
    const proxy = await management.proxies.create({ name: 'logged', destinationUrl: t.engine.echoUrl!, requireAuth: true });
    await management.proxies.get(proxy.id!);
    await management.proxies.patch(proxy.id!, { configuration: { k: 'v' } });
    expect((await t.call('POST', '/proxy', { key: t.privateKey, headers: { 'BT-PROXY-KEY': proxy.key! }, body: { a: 1 } })).status).toBe(200);
    await management.proxies.delete(proxy.id!);
    const tokenized = await t.call('POST', '/tokenize', { key: t.privateKey, body: { note: 'a secret', card: { type: 'card', data: { number: CARD_NUMBER } } } });
    expect(tokenized.status).toBe(200);
    const intents = nodeSdk(t, (await management.applications.create({ name: 'intents', type: 'private', permissions: ['token-intent:create', 'token-intent:read', 'token-intent:delete'] })).key!);
    const intent = await intents.tokenIntents.create({ type: 'card', data: { number: CARD_NUMBER, expiration_month: 12, expiration_year: 2030 } });
    await intents.tokenIntents.get(intent.id!);
    await intents.tokenIntents.delete(intent.id!);

    const all = await logsOnceIn({ startDate: since }, 11);
    const lines = all.filter((l) => l.entityType !== 'application');
    expect(lines.map((l) => [l.entityType, l.entityId, l.operation, l.message])).toEqual([
      ['token_intent', intent.id, 'delete', 'Token intent deleted'],
      ['token_intent', intent.id, 'read', 'Token intent retrieved'],
      ['token_intent', intent.id, 'create', 'Token intent created'],
      ['card', tokenized.body.card.id, 'create', 'Token created'],
      ['token', tokenized.body.note, 'create', 'Token created'],
      ['proxy', proxy.id, 'delete', 'Proxy deleted'],
      ['proxy', proxy.id, 'invoke', 'Proxy invoked'],
      ['proxy', proxy.id, 'update', 'Proxy updated'],
      ['proxy', proxy.id, 'read', 'Proxy retrieved'],
      ['proxy', proxy.id, 'create', 'Proxy created'],
    ]);
  });
});

describe('the lines of the tenant and webhooks', () => {
  it('logs webhooks (create, read, replace, delete) and the tenant (read, update)', async () => {
    const since = new Date();
    const webhook = await management.webhooks.create({ name: 'logged', url: t.engine.echoUrl!, events: ['token.created'] });
    await management.webhooks.get(webhook.id);
    await management.webhooks.update(webhook.id, { name: 'logged again', url: t.engine.echoUrl!, events: ['token.updated'] });
    await management.webhooks.delete(webhook.id);
    const tenant = await management.tenants.self.get();
    await management.tenants.self.update({ name: 'Logged tenant' });

    const lines = await logsOnceIn({ startDate: since }, 6);
    expect(lines.map((l) => [l.entityType, l.entityId, l.operation, l.message])).toEqual([
      ['tenant', tenant.id, 'update', 'Tenant updated'],
      ['tenant', tenant.id, 'read', 'Tenant retrieved'],
      ['webhook', webhook.id, 'delete', 'Webhook deleted'],
      ['webhook', webhook.id, 'update', 'Webhook updated'],
      ['webhook', webhook.id, 'read', 'Webhook retrieved'],
      ['webhook', webhook.id, 'create', 'Webhook created'],
    ]);
  });
});

describe('log:read and the errors of /logs', () => {
  it('is a management permission in GET /permissions', async () => {
    const listed = await management.permissions.list({ applicationType: 'management' });
    expect(listed.find((p) => p.type === 'log:read')).toEqual({ type: 'log:read', description: 'Read audit logs', applicationTypes: ['management'] });
    const forPrivate = await management.permissions.list({ applicationType: 'private' });
    expect(forPrivate.map((p) => p.type)).not.toContain('log:read');
  });

  it('answers 401 without a key and 403 without log:read', async () => {
    expect((await t.call('GET', '/logs')).status).toBe(401);
    expect((await t.call('GET', '/logs/entity-types')).status).toBe(401);
    await expect(backend.logs.list()).rejects.toMatchObject({ statusCode: 403 });
    await expect(backend.logs.getEntityTypes()).rejects.toMatchObject({ statusCode: 403 });
    const apps = await management.applications.create({ name: 'no logs', type: 'management', permissions: ['application:read'] });
    await expect(nodeSdk(t, apps.key!).logs.list()).rejects.toMatchObject({ statusCode: 403 });
  });

  it.each([
    ['start_date=yesterday', 'start_date'],
    ['end_date=2026-13-01T00:00:00Z', 'end_date'],
    [`entity_type=${'x'.repeat(51)}`, 'entity_type'],
    ['entity_type=wallet', 'entity_type'],
    [`entity_id=${'x'.repeat(201)}`, 'entity_id'],
    ['size=101', 'size'],
    ['page=0', 'page'],
    ['start=not-a-cursor', 'start'],
  ])('answers %s with a 400 problem naming the field', async (query, field) => {
    const answer = await t.call('GET', `/logs?${query}`, { key: t.managementKey });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 400, errors: { [field]: expect.any(Array) } });
  });

  it('the SDK reads a 400 as a BadRequestError', async () => {
    await expect(management.logs.list({ entityType: 'wallet' })).rejects.toMatchObject({ statusCode: 400 });
  });
});
