import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BasisTheoryClient } from '@basis-theory/node-sdk';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk, privateAppKey } from '../support/vendor-sdks';

/**
 * Query and body fields that the vendor's OpenAPI spec (api/openapi.yaml of its Go SDK, github.com/Basis-Theory/basistheory-go)
 * gives the endpoints Tokenbench implements: each is honoured or answered with a 400 that names it, never dropped
 * silently. docs/api.md (OpenAPI fields, endpoint by endpoint) lists them all.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let backend: BasisTheoryClient;
let backendKey: string;
let legacyManagement: Awaited<ReturnType<typeof legacySdk>>;
let legacyBackend: Awaited<ReturnType<typeof legacySdk>>;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  backendKey = await privateAppKey(management, 'fields backend', [
    { container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:update', 'token:search'] },
  ]);
  backend = nodeSdk(t, backendKey);
  legacyManagement = await legacySdk(t, t.managementKey);
  legacyBackend = await legacySdk(t, backendKey);
});
afterAll(() => t.stop());

/** The fields a refused call's 400 names, through either SDK. */
async function refusedFields(call: Promise<unknown>): Promise<string[]> {
  const error = (await call.then(
    () => ({ status: 200, body: {} }),
    (e: any) => ({ status: e.statusCode ?? e.status, body: e.body ?? e.data }),
  )) as { status: number; body: { errors?: Record<string, string[]> } };
  expect(error.status).toBe(400);
  return Object.keys(error.body.errors ?? {});
}

const ids = (items: { id?: string }[]) => items.map((item) => item.id);

describe('GET /applications: id, type, page, size and start', () => {
  it('filters by id and by type, each repeatable, through the node SDK', async () => {
    const a = await management.applications.create({ name: 'a', type: 'private', permissions: ['token:read'] });
    const b = await management.applications.create({ name: 'b', type: 'public', permissions: ['token:create'] });
    await management.applications.create({ name: 'c', type: 'private', permissions: ['token:read'] });
    expect(ids((await management.applications.list({ id: [a.id!, b.id!] })).data)).toEqual([a.id, b.id]);
    expect(ids((await management.applications.list({ id: b.id! })).data)).toEqual([b.id]);
    const publics = (await management.applications.list({ type: 'public' })).data;
    expect(publics.map((app) => app.type)).toEqual(['public']);
    const both = (await management.applications.list({ type: ['public', 'management'], size: 100 })).data;
    expect(new Set(both.map((app) => app.type))).toEqual(new Set(['public', 'management']));
    expect((await management.applications.list({ id: a.id!, type: 'public' })).data).toEqual([]);
  });

  it('refuses start (cursor paging), which it does not implement here, naming it', async () => {
    expect(await refusedFields(management.applications.list({ start: 'abc' }))).toEqual(['start']);
  });
});

describe('POST and PUT /applications: expires_at and rules[].conditions', () => {
  it('refuses expires_at (applications do not expire here), through the legacy SDK that sends it', async () => {
    const create = legacyManagement.applications.create({ name: 'expiring', type: 'private', permissions: ['token:read'], expiresAt: '2030-04-23T13:24:28Z' });
    // The legacy SDK camel-cases the problem body it hands back, field names included.
    expect(await refusedFields(create)).toEqual(['expiresAt']);
  });

  it('refuses access-rule conditions (they apply to sessions, which do not exist here), on create and update', async () => {
    const rule = { description: 'r', priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] };
    const conditions = [{ attribute: 'session.id', operator: 'equals', value: '1' }];
    expect(await refusedFields(management.applications.create({ name: 'conditional', type: 'private', rules: [{ ...rule, conditions }] }))).toEqual([
      'rules.0.conditions',
    ]);
    const app = await management.applications.create({ name: 'plain', type: 'private', rules: [{ ...rule, conditions: [] }] });
    expect(await refusedFields(management.applications.update(app.id!, { name: 'plain', rules: [{ ...rule, conditions }] }))).toEqual([
      'rules.0.conditions',
    ]);
  });
});

describe('GET /applications/{id}/keys: id and type', () => {
  it('filters by key id and refuses type, naming it', async () => {
    const app = await management.applications.create({ name: 'keyed', type: 'private', permissions: ['token:read'] });
    const second = await management.applicationKeys.create(app.id!);
    expect(ids(await management.applicationKeys.list(app.id!, { id: second.id! }))).toEqual([second.id]);
    expect(ids(await management.applicationKeys.list(app.id!, { id: [second.id!, app.keys![0].id!] })).sort()).toEqual([second.id, app.keys![0].id].sort());
    expect(await refusedFields(management.applicationKeys.list(app.id!, { type: 'private' }))).toEqual(['type']);
  });
});

describe('POST /tokens and PATCH /tokens/{id}', () => {
  it('refuses an unknown token_intent_id and type and data beside one, naming them', async () => {
    const tokenIntentId = 'e5e3d8b4-6d3a-4b6c-9d7f-2b1b1c1d1e1f';
    expect(await refusedFields(backend.tokens.create({ tokenIntentId }))).toEqual(['token_intent_id']);
    expect((await refusedFields(backend.tokens.create({ type: 'token', data: 'x', tokenIntentId }))).sort()).toEqual(['data', 'type']);
  });

  it('refuses encrypted beside data (the encrypted data comes instead of it), naming it', async () => {
    expect(await refusedFields(backend.tokens.create({ type: 'token', data: 'x', encrypted: 'eyJhbGciOi' }))).toEqual(['encrypted']);
  });

  it('still ignores the obsolete privacy settings, as the vendor does since it dropped them', async () => {
    const created = await backend.tokens.create({ type: 'token', data: 'private', privacy: { impactLevel: 'high', restrictionPolicy: 'mask' } });
    expect(created.containers).toEqual(['/general/high/']);
  });

  it('refuses deduplicate_token: true on update (deduplication happens on create here), naming it', async () => {
    const created = await backend.tokens.create({ type: 'token', data: 'dedupe me' });
    expect(await refusedFields(backend.tokens.update(created.id!, { deduplicateToken: true }))).toEqual(['deduplicate_token']);
    expect((await backend.tokens.update(created.id!, { deduplicateToken: false, metadata: { a: 'b' } })).metadata).toEqual({ a: 'b' });
  });
});

describe('GET /tokens and POST /tokens/search (v1): type and start', () => {
  it('refuses type on the v1 list, which the legacy SDK still sends but the vendor stopped documenting, naming it', async () => {
    expect(await refusedFields(legacyBackend.tokens.list({ type: 'card_number' }))).toEqual(['type']);
    expect(await refusedFields(legacyBackend.tokens.list({ type: ['card_number', 'social_security_number'] }))).toEqual(['type']);
  });

  it('refuses start (v1 pages by page and size), naming it', async () => {
    expect(await refusedFields(legacyBackend.tokens.list({ start: 'abc' }))).toEqual(['start']);
    const search = await t.call('POST', '/tokens/search', { key: backendKey, body: { query: 'type:token', start: 'abc' } });
    expect(search.status).toBe(400);
    expect(Object.keys(search.body.errors)).toEqual(['start']);
  });
});
