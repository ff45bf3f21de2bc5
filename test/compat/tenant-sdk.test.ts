import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk } from '../support/vendor-sdks';

/**
 * The tenant (docs/api.md, Tenant) driven by the vendor's SDKs, unchanged: every /tenants/self route of the node SDK's
 * `tenants.self`, and the legacy SDK's `tenants`, which adds a trailing slash.
 */
let t: TestEngine;
let management: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, allowTenantDelete: true });
  management = nodeSdk(t, t.managementKey);
});
afterAll(() => t.stop());

describe('the node SDK (5.7.0) on /tenants/self', () => {
  it('gets the tenant, and updates its name and settings (with an idempotency key)', async () => {
    const tenant = await management.tenants.self.get();
    expect(tenant).toMatchObject({ name: 'Tokenbench', type: 'test', settings: { deduplicate_tokens: 'false', fingerprint_tokens: 'true' } });
    expect(tenant.createdAt).toBeInstanceOf(Date);

    const updated = await management.tenants.self.update(
      { name: 'SDK tenant', settings: { deduplicate_tokens: 'true', disable_ephemeral_proxy: 'true' } },
      { idempotencyKey: 'tenant-update-1' },
    );
    expect(updated).toMatchObject({ id: tenant.id, name: 'SDK tenant', settings: { deduplicate_tokens: 'true', disable_ephemeral_proxy: 'true' } });
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    const replayed = await management.tenants.self.update({ name: 'SDK tenant', settings: {} }, { idempotencyKey: 'tenant-update-1' });
    expect(replayed.settings).toEqual(updated.settings);
  });

  it('surfaces a bad setting as a BadRequestError naming it, and 403 to a private key', async () => {
    const failure = await management.tenants.self.update({ name: 'x', settings: { fingerprint_tokens: 'maybe' } }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ statusCode: 400 });
    expect(Object.keys((failure as { body: { errors: object } }).body.errors)).toEqual(['settings.fingerprint_tokens']);
    await expect(nodeSdk(t, t.privateKey).tenants.self.get()).rejects.toMatchObject({ statusCode: 403 });
  });

  it('reads the usage report: total_tokens, as the SDK types it', async () => {
    await nodeSdk(t, t.privateKey).tokens.create({ type: 'token', data: 'counted' });
    const report = await management.tenants.self.getUsageReports();
    expect(report.totalTokens).toBe(1);
    expect((report as { token_report?: { monthly_active_tokens: number } }).token_report?.monthly_active_tokens).toBe(1);
  });
});

describe('the legacy JS SDK (2.9.0) on /tenants/self/', () => {
  it('retrieves, updates and reads the usage report', async () => {
    const bt = await legacySdk(t, t.managementKey);
    expect(await bt.tenants.retrieve()).toMatchObject({ type: 'test' });
    const updated = await bt.tenants.update({ name: 'legacy', settings: { deduplicate_tokens: 'true' } } as never);
    expect(updated).toMatchObject({ name: 'legacy' });
    expect((await bt.tenants.retrieveUsageReport()).tokenReport).toMatchObject({ monthlyActiveTokens: 1, metricsByType: { token: { count: 1 } } });
  });
});

// Last: it empties the vault, the keys above included.
describe('deleting the tenant', () => {
  it('is a 204 the node SDK takes; the keys of the deleted tenant stop working', async () => {
    await management.tenants.self.delete();
    await expect(management.tenants.self.get()).rejects.toMatchObject({ statusCode: 401 });
  });
});
