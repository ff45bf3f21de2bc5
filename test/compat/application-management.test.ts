import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasisTheoryError, type BasisTheoryClient } from '@basis-theory/node-sdk';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk } from '../support/vendor-sdks';

/**
 * Applications as the vendor's applications page documents them
 * (https://developers.basistheory.com/docs/api/applications), driven through both of its JavaScript SDKs.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let legacy: Awaited<ReturnType<typeof legacySdk>>;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  legacy = await legacySdk(t, t.managementKey);
});
afterAll(() => t.stop());

describe('updating an application (PUT /applications/{id}: name, permissions and rules; the type stays)', () => {
  it('takes the docs’ own example through the node SDK', async () => {
    const app = await management.applications.create({ name: 'Example', type: 'management', permissions: ['application:read'] });
    const updated = await management.applications.update(app.id!, { name: 'My Example App', permissions: ['application:create', 'application:read'] });
    expect(updated).toMatchObject({ id: app.id, name: 'My Example App', type: 'management', permissions: ['application:create', 'application:read'] });
    expect((await management.applications.get(app.id!)).permissions).toEqual(['application:create', 'application:read']);
  });

  it('takes the docs’ own example through the legacy SDK', async () => {
    const app = await legacy.applications.create({ name: 'Example', type: 'management', permissions: ['application:read'] });
    const updated = await legacy.applications.update(app.id, { name: 'My Example App', permissions: ['application:create', 'application:read'] });
    expect(updated).toMatchObject({ id: app.id, name: 'My Example App', type: 'management', permissions: ['application:create', 'application:read'] });
  });

  it('replaces a private application’s rules, checked against the type it has', async () => {
    const app = await management.applications.create({ name: 'backend', type: 'private', permissions: ['token:read'] });
    const rules = [{ description: 'pci', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:use'] }];
    const updated = await management.applications.update(app.id!, { name: 'backend', rules });
    expect(updated.rules).toEqual([expect.objectContaining(rules[0])]);
    const refused = await management.applications
      .update(app.id!, { name: 'backend', permissions: ['application:read'] })
      .then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(BasisTheoryError);
    expect((refused as BasisTheoryError).statusCode).toBe(400);
    expect(Object.keys((refused as any).body.errors)).toEqual(['permissions.0']);
  });

  it('accepts the type sent back unchanged and refuses a change of type, naming it', async () => {
    const app = await management.applications.create({ name: 'typed', type: 'public', permissions: ['token:create'] });
    const same = await t.call('PUT', `/applications/${app.id}`, { key: t.managementKey, body: { name: 'typed', type: 'public', permissions: ['token:create'] } });
    expect(same.status).toBe(200);
    const changed = await t.call('PUT', `/applications/${app.id}`, { key: t.managementKey, body: { name: 'typed', type: 'private', permissions: ['token:create'] } });
    expect(changed.status).toBe(400);
    expect(Object.keys(changed.body.errors)).toEqual(['type']);
    expect((await management.applications.get(app.id!)).type).toBe('public');
  });
});
