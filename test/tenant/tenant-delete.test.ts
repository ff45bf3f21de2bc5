import { afterEach, describe, expect, it } from 'vitest';
import { seedFile } from '../../electron/engine';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * DELETE /tenants/self (docs/api.md, Tenant): refused unless the engine allows it (`serve --allow-tenant-delete` or
 * Settings' toggle, never a tenant field); allowed, it wipes every resource and the service goes on empty apart from
 * the seed.
 */
let t: TestEngine | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

const SEED_KEY = 'key_test_ci_backend_0123456789abcdef';
const SEED_TOKEN = '8f1c9d2e-4b7a-4c3e-9f10-2a3b4c5d6e7f';
const seed = seedFile.parse({
  applications: [
    { name: 'ci-admin', type: 'management', key: 'key_test_ci_admin_0123456789abcdef', permissions: ['tenant:read', 'tenant:update', 'tenant:delete'] },
    { name: 'ci-backend', type: 'private', key: SEED_KEY, permissions: ['token:create', 'token:read'] },
  ],
  tokens: [{ id: SEED_TOKEN, type: 'token', data: 'seeded' }],
});

describe('DELETE /tenants/self, allowed', () => {
  it('wipes tokens, applications and the tenant’s name and settings, then applies the seed again', async () => {
    t = await startTestEngine({ inMemory: true, allowTenantDelete: true, seed });
    const admin = 'key_test_ci_admin_0123456789abcdef';
    const other = await t.call('POST', '/tokens', { key: SEED_KEY, body: { type: 'token', data: 'made later' } });
    expect(other.status).toBe(201);
    await t.call('PUT', '/tenants/self', { key: admin, body: { name: 'renamed', settings: { deduplicate_tokens: 'true' } } });

    const deleted = await t.call('DELETE', '/tenants/self', { key: admin });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    expect((await t.call('GET', `/tokens/${other.body.id}`, { key: SEED_KEY })).status).toBe(404);
    expect((await t.call('GET', `/tokens/${SEED_TOKEN}`, { key: SEED_KEY })).status).toBe(200);
    const tenant = await t.call('GET', '/tenants/self', { key: admin });
    expect(tenant.body).toMatchObject({ name: 'Tokenbench', settings: { deduplicate_tokens: 'false' } });
    expect(tenant.body.modified_at).toBeUndefined();
    const usage = await t.call('GET', '/tenants/self/reports/usage', { key: admin });
    expect(usage.status).toBe(403);
  });

  it('without a seed, leaves a new vault’s first applications, whose keys the workbench shows once', async () => {
    t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
    const before = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'gone soon' } });
    expect((await t.call('DELETE', '/tenants/self', { key: t.managementKey })).status).toBe(422);

    const allowed = await t.workbench('changeTenantDelete', { allowTenantDelete: true });
    expect(allowed.status).toBe(200);
    expect(allowed.body.tenantDelete.allowTenantDelete).toMatchObject({ value: true, stored: true, pinnedBy: null });
    expect((await t.call('DELETE', '/tenants/self', { key: t.managementKey })).status).toBe(204);

    expect((await t.call('GET', '/tenants/self', { key: t.managementKey })).status).toBe(401);
    const welcome = await t.workbench('takeWelcome');
    const management = welcome.body.keys.management.key as string;
    const backend = welcome.body.keys.private.key as string;
    expect((await t.call('GET', `/tokens/${before.body.id}`, { key: backend })).status).toBe(404);
    expect((await t.call('GET', '/tenants/self/reports/usage', { key: management })).body.total_tokens).toBe(0);
  });

  it('is pinned by the start flag: Settings cannot turn it off while the engine runs with it', async () => {
    t = await startTestEngine({ inMemory: true, workbenchRoutes: true, allowTenantDelete: true });
    const settings = await t.workbench('getSettings');
    expect(settings.body.tenantDelete.allowTenantDelete).toMatchObject({ value: true, default: false, pinnedBy: '--allow-tenant-delete' });
    const refused = await t.workbench('changeTenantDelete', { allowTenantDelete: false });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/--allow-tenant-delete/);
  });
});
