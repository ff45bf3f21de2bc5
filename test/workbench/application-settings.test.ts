import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applicationDetailSchema } from '../../shared/workbench/application-contract';
import { callMethod, problemOf } from '../../electron/engine';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** Settings' applications and keys: what the management API does, without a management key, checked the same way. */
const PAN = '4242424242424242';
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
});
afterAll(() => t.stop());

const wb = () => t.engine.workbench;
/** A workbench call as both transports make it: validated against the method table first. */
const call = async (name: string, request: unknown) => {
  try {
    return { ok: true as const, value: (await callMethod(wb(), name as 'createApplication', request)) as any };
  } catch (error) {
    return { ok: false as const, problem: problemOf(error) };
  }
};

const MASK_RULE = { description: 'cards masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] };

describe('applications in Settings', () => {
  it('creates an application with a masking rule whose new key works from an outside client, and stops working once revoked', async () => {
    const app = await wb().createApplication({ name: 'Checkout', type: 'private', permissions: ['token:create'], rules: [MASK_RULE] });
    expect(applicationDetailSchema.parse(app)).toMatchObject({ name: 'Checkout', type: 'private', keys: [], rules: [MASK_RULE] });
    const card = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: PAN, containers: ['/pci/'] } });
    expect(card.status).toBe(201);

    const made = await wb().createApplicationKey({ application_id: app.id });
    expect(made.key.key).toMatch(/^key_local_/);
    expect(made.application.keys).toEqual([{ id: made.key.id, created_at: made.key.created_at, key_last4: made.key.key.slice(-4), kept: null }]);
    const read = await t.call('GET', `/tokens/${card.body.id}`, { key: made.key.key });
    expect(read.status).toBe(200);
    expect(read.body.data).toBe('XXXXXXXXXXXX4242');
    // The secret is in that one answer: listing never shows it again.
    expect(JSON.stringify(await wb().listApplicationDetails({}))).not.toContain(made.key.key);

    expect((await wb().revokeApplicationKey({ application_id: app.id, key_id: made.key.id })).keys).toEqual([]);
    expect((await t.call('GET', `/tokens/${card.body.id}`, { key: made.key.key })).status).toBe(401);
  });

  it('refuses what the management API refuses, naming the field, and writes nothing', async () => {
    const before = (await wb().listApplicationDetails({})).length;
    const wrongPermission = await call('createApplication', { name: 'Front end', type: 'public', permissions: ['token:read'], rules: [] });
    expect(wrongPermission).toMatchObject({ ok: false, problem: { status: 400, detail: 'permissions.0: token:read is not a permission a public application can hold' } });
    const badContainer = await call('createApplication', { name: 'X', type: 'private', permissions: [], rules: [{ ...MASK_RULE, container: 'pci' }] });
    expect(badContainer).toMatchObject({ ok: false, problem: { status: 400, errors: { 'rules.0.container': [expect.stringContaining('start and end with')] } } });
    const managementRules = await call('createApplication', { name: 'Admin', type: 'management', permissions: [], rules: [MASK_RULE] });
    expect(managementRules).toMatchObject({ ok: false, problem: { status: 400, errors: { rules: ['Management applications take permissions, not access rules'] } } });
    const noName = await call('createApplication', { name: '  ', type: 'private', permissions: [], rules: [] });
    expect(noName).toMatchObject({ ok: false, problem: { status: 400, errors: { name: ['name is required'] } } });
    const extra = await call('createApplication', { name: 'X', type: 'private', permissions: [], rules: [], create_key: true });
    expect(extra).toMatchObject({ ok: false, problem: { status: 400 } });
    expect(await wb().listApplicationDetails({})).toHaveLength(before);
  });

  it('renames and changes permissions in place, keeps the type, and deletes: its keys stop working at once', async () => {
    const app = await wb().createApplication({ name: 'Old name', type: 'private', permissions: ['token:read'], rules: [] });
    const key = (await wb().createApplicationKey({ application_id: app.id })).key.key;
    const renamed = await wb().updateApplication({ id: app.id, name: 'New name', permissions: ['token:read', 'token:create'], rules: [] });
    expect(renamed).toMatchObject({ id: app.id, name: 'New name', type: 'private', permissions: ['token:read', 'token:create'], modified_at: expect.any(String) });
    expect((await t.call('GET', '/applications/key', { key })).body.name).toBe('New name');

    expect(await wb().deleteApplication({ application_id: app.id })).toEqual({ deleted: true });
    expect((await t.call('GET', '/applications/key', { key })).status).toBe(401);
    expect(await call('deleteApplication', { application_id: app.id })).toMatchObject({ ok: false, problem: { status: 404 } });
  });

  it("labels the keys Tokenbench keeps among an application's keys: the workbench's and the seed files'", async () => {
    const backend = t.engine.bootstrapKeys!.private.application_id;
    await wb().sendRequest({ id: 'mint', application_id: backend, method: 'GET', path: '/applications/key', headers: [], body: null });
    await wb().exportSeed({ include_tokens: false });
    const listed = (await wb().listApplicationDetails({})).find((app) => app.id === backend)!;
    expect(listed.keys.map((key) => key.kept)).toEqual([null, 'workbench', 'export']);
    // Each named by its last four, as every page and History sentence names it.
    expect(listed.keys[0].key_last4).toBe(t.privateKey.slice(-4));
    expect(listed.keys.map((key) => key.key_last4)).toEqual([expect.stringMatching(/^.{4}$/), expect.stringMatching(/^.{4}$/), expect.stringMatching(/^.{4}$/)]);
    const choice = (await wb().listApplications({})).find((app) => app.id === backend)!;
    expect(choice.workbench_key).toEqual({ id: listed.keys[1].id, created_at: listed.keys[1].created_at, key_last4: listed.keys[1].key_last4 });
  });

  it('lists the permissions with their meaning and the types that may hold each', async () => {
    const permissions = await wb().listPermissions({});
    expect(permissions).toContainEqual({ type: 'token:use', description: 'Use Tokens in the Proxy', application_types: ['private'] });
    expect(permissions).toContainEqual({ type: 'token:create', description: 'Create Tokens', application_types: ['public', 'private'] });
    expect(permissions).toContainEqual({ type: 'proxy:invoke', description: 'Invoke Proxies', application_types: ['private'] });
    expect(permissions).toContainEqual({ type: 'proxy:create', description: 'Create Proxies', application_types: ['management'] });
    expect(permissions).toContainEqual({ type: 'webhook:update', description: 'Update Webhooks', application_types: ['management'] });
  });
});
