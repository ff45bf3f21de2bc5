import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { vaultSql } from '../support/vault-sql';

/**
 * /tenants/self (docs/api.md, Tenant): the one tenant, its name and settings, its usage report, and every error row of
 * vendor-surfaces.md §6.1 through real HTTP.
 */
let t: TestEngine;

const DEFAULTS = { deduplicate_tokens: 'false', token_deduplication_behavior: 'read_existing', fingerprint_tokens: 'true', disable_ephemeral_proxy: 'false' };
const card = (number = '4242424242424242') => ({ type: 'card', data: { number, expiration_month: 12, expiration_year: 2040 } });

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
});
afterAll(() => t.stop());

async function managementKeyWith(permissions: string[]): Promise<string> {
  const app = await t.call('POST', '/applications', { key: t.managementKey, body: { name: permissions.join(' ') || 'nothing', type: 'management', permissions } });
  expect(app.status).toBe(201);
  return app.body.key;
}

describe('GET and PUT /tenants/self', () => {
  it('answers the tenant: its id (the one tokens carry), a test type and the four settings at their defaults', async () => {
    const token = await t.call('POST', '/tokens', { key: t.privateKey, body: card() });
    const tenant = await t.call('GET', '/tenants/self', { key: t.managementKey });
    expect(tenant.status).toBe(200);
    expect(tenant.body).toMatchObject({ id: token.body.tenant_id, type: 'test', name: 'Tokenbench', settings: DEFAULTS });
    expect(tenant.body.owner_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(tenant.body.created_by).toBe(tenant.body.owner_id);
    expect(Date.parse(tenant.body.created_at)).not.toBeNaN();
    expect((await t.call('GET', '/tenants/self/', { key: t.managementKey })).body.id).toBe(tenant.body.id);
  });

  it('replaces the name and the whole settings map: a key left out goes back to its default', async () => {
    const updated = await t.call('PUT', '/tenants/self', {
      key: t.managementKey,
      body: { name: 'Checkout (dev)', settings: { deduplicate_tokens: 'true', fingerprint_tokens: 'false' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Checkout (dev)', settings: { ...DEFAULTS, deduplicate_tokens: 'true', fingerprint_tokens: 'false' } });
    expect(updated.body.modified_by).toBe((await t.call('GET', '/applications/key', { key: t.managementKey })).body.id);
    expect(Date.parse(updated.body.modified_at)).not.toBeNaN();
    expect((await t.call('GET', '/tenants/self', { key: t.managementKey })).body).toEqual(updated.body);

    const renamed = await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { name: 'Checkout', settings: { token_deduplication_behavior: 'update_existing' } } });
    expect(renamed.body.settings).toEqual({ ...DEFAULTS, token_deduplication_behavior: 'update_existing' });
    const nameOnly = await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { name: 'Checkout', unknown_field: 1 } });
    expect(nameOnly.status).toBe(200);
    expect(nameOnly.body.settings).toEqual(DEFAULTS);
  });

  it('answers 400 naming the field for a missing, empty or too long name, and changes nothing', async () => {
    const before = (await t.call('GET', '/tenants/self', { key: t.managementKey })).body;
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }, { name: 42 }]) {
      const refused = await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { ...body, settings: { deduplicate_tokens: 'true' } } });
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.errors)).toEqual(['name']);
    }
    expect((await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { name: 'x'.repeat(200) } })).status).toBe(200);
    await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { name: before.name } });
    expect((await t.call('GET', '/tenants/self', { key: t.managementKey })).body.settings).toEqual(before.settings);
  });

  it('answers 400 naming each unknown setting and each bad value, and changes nothing', async () => {
    const refused = await t.call('PUT', '/tenants/self', {
      key: t.managementKey,
      body: { name: 'bad', settings: { deduplicate_tokens: 'yes', token_deduplication_behavior: 'merge', fingerprint_tokens: true, colour: 'blue' } },
    });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Object.keys(refused.body.errors).sort()).toEqual([
      'settings.colour',
      'settings.deduplicate_tokens',
      'settings.fingerprint_tokens',
      'settings.token_deduplication_behavior',
    ]);
    expect(refused.body.errors['settings.colour'][0]).toMatch(/deduplicate_tokens/);
    expect((await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { name: 'bad', settings: ['true'] } })).status).toBe(400);
    expect((await t.call('GET', '/tenants/self', { key: t.managementKey })).body.name).not.toBe('bad');
  });

  it('answers 401 without a key, and 403 to a key without tenant:read, tenant:update or report:read', async () => {
    expect((await t.call('GET', '/tenants/self')).status).toBe(401);
    expect((await t.call('PUT', '/tenants/self', { body: { name: 'x' } })).status).toBe(401);
    expect((await t.call('DELETE', '/tenants/self')).status).toBe(401);
    expect((await t.call('GET', '/tenants/self/reports/usage')).status).toBe(401);
    const reader = await managementKeyWith(['tenant:read']);
    expect((await t.call('GET', '/tenants/self', { key: reader })).status).toBe(200);
    expect((await t.call('PUT', '/tenants/self', { key: reader, body: { name: 'x' } })).status).toBe(403);
    expect((await t.call('DELETE', '/tenants/self', { key: reader })).status).toBe(403);
    expect((await t.call('GET', '/tenants/self/reports/usage', { key: reader })).status).toBe(403);
    expect((await t.call('GET', '/tenants/self', { key: t.privateKey })).status).toBe(403);
    const reporter = await managementKeyWith(['report:read']);
    expect((await t.call('GET', '/tenants/self/reports/usage', { key: reporter })).status).toBe(200);
    expect((await t.call('GET', '/tenants/self', { key: reporter })).status).toBe(403);
  });

  it('refuses DELETE with 422 while the engine does not allow it, and deletes nothing', async () => {
    const deleter = await managementKeyWith(['tenant:delete']);
    const refused = await t.call('DELETE', '/tenants/self', { key: deleter });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toMatch(/^tenant deletion is disabled/);
    expect(refused.body.detail).toMatch(/--allow-tenant-delete/);
    expect((await t.call('GET', '/tenants/self', { key: t.managementKey })).status).toBe(200);
  });
});

describe('GET /permissions', () => {
  it('lists tenant:read, tenant:update, tenant:delete and report:read for management applications', async () => {
    const listed = await t.call('GET', '/permissions?application_type=management', { key: t.managementKey });
    const types = listed.body.map((p: { type: string }) => p.type);
    expect(types).toEqual(expect.arrayContaining(['tenant:read', 'tenant:update', 'tenant:delete', 'report:read']));
    expect(listed.body.find((p: { type: string }) => p.type === 'report:read')).toEqual({ type: 'report:read', description: 'Read reports', application_types: ['management'] });
    const forPrivate = await t.call('GET', '/permissions?application_type=private', { key: t.managementKey });
    expect(forPrivate.body.map((p: { type: string }) => p.type)).not.toContain('tenant:read');
    const refused = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'p', type: 'private', permissions: ['tenant:read'] } });
    expect(refused.status).toBe(400);
  });
});

describe('GET /tenants/self/reports/usage', () => {
  it('answers the union of both SDKs’ shapes: totals and per-type counts of live tokens, and the monthly active tokens', async () => {
    const fresh = await startTestEngine({ inMemory: true });
    try {
      const empty = await fresh.call('GET', '/tenants/self/reports/usage', { key: fresh.managementKey });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({
        total_tokens: 0,
        token_report: { metrics_by_type: {}, included_monthly_active_tokens: 0, monthly_active_tokens: 0, total_tokens: 0 },
      });
      await fresh.call('POST', '/tokens', { key: fresh.privateKey, body: card() });
      const last = await fresh.call('POST', '/tokens', { key: fresh.privateKey, body: card('5555555555554444') });
      await fresh.call('POST', '/tokens', { key: fresh.privateKey, body: { type: 'token', data: 'secret' } });
      // Expired, it is no token of the vault's any more (though it was active this month).
      const soon = new Date(Date.now() + 1000).toISOString();
      expect((await fresh.call('POST', '/tokens', { key: fresh.privateKey, body: { type: 'token', data: 'brief', expires_at: soon } })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const report = (await fresh.call('GET', '/tenants/self/reports/usage', { key: fresh.managementKey })).body;
      expect(report.total_tokens).toBe(3);
      expect(report.token_report).toEqual({
        metrics_by_type: { card: { count: 2, last_created_at: last.body.created_at }, token: { count: 1, last_created_at: expect.any(String) } },
        included_monthly_active_tokens: 0,
        monthly_active_tokens: 4,
        total_tokens: 3,
      });
    } finally {
      await fresh.stop();
    }
  });

  it('counts a token made in an earlier month once it is read or used in this one, each token once', async () => {
    const dataDir = tempDir();
    let engine = await startTestEngine({ dataDir });
    const { managementKey, privateKey } = engine;
    const read = (await engine.call('POST', '/tokens', { key: privateKey, body: card() })).body.id;
    const used = (await engine.call('POST', '/tokens', { key: privateKey, body: { type: 'token', data: 'used' } })).body.id;
    await engine.call('POST', '/tokens', { key: privateKey, body: { type: 'token', data: 'idle' } });
    expect((await engine.call('GET', '/tenants/self/reports/usage', { key: managementKey })).body.token_report.monthly_active_tokens).toBe(3);
    await engine.stop();
    // As if the three were made last month.
    await vaultSql(dataDir, "UPDATE active_tokens SET month = '2000-01'");
    engine = await startTestEngine({ dataDir });
    try {
      const mat = async () => (await engine.call('GET', '/tenants/self/reports/usage', { key: managementKey })).body.token_report.monthly_active_tokens;
      expect(await mat()).toBe(0);
      expect((await engine.call('GET', `/tokens/${read}`, { key: privateKey })).status).toBe(200);
      expect((await engine.call('GET', `/tokens/${read}`, { key: privateKey })).status).toBe(200);
      expect(await mat()).toBe(1);
      expect((await engine.call('POST', '/detokenize', { key: privateKey, body: { value: `{{ ${used} }}` } })).body).toEqual({ value: 'used' });
      expect(await mat()).toBe(2);
      expect((await engine.call('GET', '/tenants/self/reports/usage', { key: managementKey })).body.total_tokens).toBe(3);
    } finally {
      await engine.stop();
    }
  });
});
