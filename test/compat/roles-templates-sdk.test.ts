import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk } from '../support/vendor-sdks';

/**
 * Roles and application templates (docs/api.md, Roles and application templates): the static catalogue the vendor's
 * SDKs read, for any valid key; every template's rules and permissions make an application of its type.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let backend: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  backend = nodeSdk(t, t.privateKey);
});
afterAll(() => t.stop());

describe('GET /roles', () => {
  it('lists the tenant member roles, for any valid key', async () => {
    expect(await backend.roles.list()).toEqual([{ name: 'OWNER' }, { name: 'ADMIN' }, { name: 'READ_ONLY' }]);
    expect((await t.call('GET', '/roles')).status).toBe(401);
  });
});

describe('GET /application-templates', () => {
  it('lists a fixed catalogue, the same ids on every start, one of each template type', async () => {
    const templates = await backend.applicationTemplates.list();
    expect(templates.length).toBeGreaterThanOrEqual(5);
    expect(new Set(templates.map((t) => t.templateType))).toEqual(new Set(['starters', 'payments', 'banking', 'pii', 'management']));
    for (const template of templates) {
      expect(template).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/), name: expect.any(String), description: expect.any(String) });
      expect(['public', 'private', 'management']).toContain(template.applicationType);
      expect(typeof template.isStarter).toBe('boolean');
      expect(await backend.applicationTemplates.get(template.id!)).toEqual(template);
    }
    const again = await startTestEngine({ inMemory: true });
    try {
      expect((await again.call('GET', '/application-templates', { key: again.privateKey })).body.map((t: { id: string }) => t.id)).toEqual(templates.map((t) => t.id));
    } finally {
      await again.stop();
    }
  });

  it("makes an application of its type from each template's rules and permissions", async () => {
    for (const template of await management.applicationTemplates.list()) {
      const app = await management.applications.create({
        name: template.name!,
        type: template.applicationType!,
        permissions: template.permissions,
        rules: template.rules,
      });
      expect(app).toMatchObject({ type: template.applicationType, permissions: template.permissions ?? [] });
      expect(app.rules ?? []).toHaveLength(template.rules?.length ?? 0);
    }
  });

  it('answers 404 for an unknown id and 401 without a key; the legacy SDK reads it with its trailing slash', async () => {
    await expect(backend.applicationTemplates.get('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ statusCode: 404 });
    await expect(backend.applicationTemplates.get('not-a-uuid')).rejects.toMatchObject({ statusCode: 404 });
    expect((await t.call('GET', '/application-templates')).status).toBe(401);
    expect((await t.call('GET', `/application-templates/${(await backend.applicationTemplates.list())[0].id}`)).status).toBe(401);
    const legacy = await legacySdk(t, t.privateKey);
    const listed = await legacy.applicationTemplates.list();
    expect(listed.map((t: { id: string }) => t.id)).toEqual((await backend.applicationTemplates.list()).map((t) => t.id));
  });
});
