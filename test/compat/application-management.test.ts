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

describe('regenerating the key of an application with one key (POST /applications/{id}/regenerate)', () => {
  const status = (promise: Promise<unknown>) => promise.then(() => 200, (e: { status?: number; statusCode?: number }) => e.status ?? e.statusCode);

  it('answers the application with a new key, through the legacy SDK’s regenerateKey, and the old key stops working', async () => {
    const app = await management.applications.create({ name: 'My Example App', type: 'private', permissions: ['token:create', 'token:read'] });
    const regenerated = await legacy.applications.regenerateKey(app.id!);
    expect(regenerated).toMatchObject({ id: app.id, name: 'My Example App', type: 'private', permissions: ['token:create', 'token:read'] });
    expect(regenerated.key).toEqual(expect.any(String));
    expect(regenerated.key).not.toBe(app.key);
    expect(await status(nodeSdk(t, app.key!).applications.getByKey())).toBe(401);
    expect((await nodeSdk(t, regenerated.key!).applications.getByKey()).id).toBe(app.id);
    const keys = await management.applicationKeys.list(app.id!);
    expect(keys).toHaveLength(1);
    expect(keys[0].id).not.toBe(app.keys![0].id);
  });

  it('answers 422 for an application with no key or with several, and changes nothing', async () => {
    const keyless = await management.applications.create({ name: 'keyless', type: 'private', permissions: ['token:read'], createKey: false });
    expect(await status(legacy.applications.regenerateKey(keyless.id!))).toBe(422);
    expect(await management.applicationKeys.list(keyless.id!)).toEqual([]);
    const twoKeys = await management.applications.create({ name: 'two keys', type: 'private', permissions: ['token:read'] });
    await management.applicationKeys.create(twoKeys.id!);
    expect(await status(legacy.applications.regenerateKey(twoKeys.id!))).toBe(422);
    expect(await status(nodeSdk(t, twoKeys.key!).applications.getByKey())).toBe(200);
  });

  it('needs application:update, and a known application', async () => {
    const reader = await management.applications.create({ name: 'reader', type: 'management', permissions: ['application:read'] });
    const target = await management.applications.create({ name: 'target', type: 'private', permissions: ['token:read'] });
    expect(await status((await legacySdk(t, reader.key!)).applications.regenerateKey(target.id!))).toBe(403);
    expect(await status(legacy.applications.regenerateKey('fb124bba-f90d-45f0-9a59-5edca27b3b4a'))).toBe(404);
    expect(await status(nodeSdk(t, target.key!).applications.getByKey())).toBe(200);
  });
});

describe('the permissions each application type may hold (GET /permissions?application_type=…)', () => {
  const PRIVATE = ['token:create', 'token:update', 'token:read', 'token:search', 'token:delete', 'token:use', 'proxy:invoke', 'reactor:invoke'];
  const TOKEN_INTENTS = ['token-intent:create', 'token-intent:read', 'token-intent:delete'];
  const PUBLIC = ['token:create', 'token:update', 'token-intent:create'];
  const TENANT = ['tenant:read', 'tenant:update', 'tenant:delete', 'report:read'];
  const MANAGEMENT = [
    'application:read',
    'application:create',
    'application:update',
    'application:delete',
    'proxy:read',
    'proxy:create',
    'proxy:update',
    'proxy:delete',
    'reactor:read',
    'reactor:create',
    'reactor:update',
    'reactor:delete',
    'keys:create',
    'keys:read',
    'keys:delete',
  ];
  const WEBHOOKS = ['webhook:read', 'webhook:create', 'webhook:update', 'webhook:delete'];

  it('lists them with descriptions through the node SDK, filtered by the documented application_type', async () => {
    const all = await management.permissions.list();
    expect(all.map((p) => p.type)).toEqual([...PRIVATE, ...MANAGEMENT, ...TOKEN_INTENTS, ...TENANT, ...WEBHOOKS, 'log:read']);
    expect(all.find((p) => p.type === 'token:create')).toEqual({ type: 'token:create', description: 'Create Tokens', applicationTypes: ['public', 'private'] });
    for (const permission of all) expect(permission.description).toMatch(/\w/);
    expect((await management.permissions.list({ applicationType: 'private' })).map((p) => p.type)).toEqual([...PRIVATE, ...TOKEN_INTENTS]);
    expect((await management.permissions.list({ applicationType: 'management' })).map((p) => p.type)).toEqual([...MANAGEMENT, ...TENANT, ...WEBHOOKS, 'log:read']);
  });

  it('answers any valid key, through the legacy SDK', async () => {
    const backend = await legacySdk(t, t.privateKey);
    const permissions = await backend.permissions.list({ applicationType: 'public' });
    expect(permissions.map((p) => p.type)).toEqual(PUBLIC);
    expect(permissions[0]).toMatchObject({ type: 'token:create', applicationTypes: ['public', 'private'] });
  });

  it('answers 400 naming application_type for a type that does not exist, and 401 without a key', async () => {
    const unknown = await t.call('GET', '/permissions?application_type=elements', { key: t.privateKey });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.errors)).toEqual(['application_type']);
    expect((await t.call('GET', '/permissions')).status).toBe(401);
  });
});
