import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
});
afterAll(() => t.stop());

const create = (body: unknown, key = t.managementKey) => t.call('POST', '/applications', { key, body });

describe('applications and keys', () => {
  it('creates an application and shows its key once', async () => {
    const res = await create({ name: 'backend', type: 'private', permissions: ['token:create', 'token:read'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'backend', type: 'private', permissions: ['token:create', 'token:read'], rules: [] });
    expect(res.body.tenant_id).toEqual(expect.any(String));
    expect(res.body.key).toMatch(/^key_local_[A-Za-z0-9_-]{43}$/);
    expect(res.body.keys).toHaveLength(1);
    const read = await t.call('GET', `/applications/${res.body.id}`, { key: t.managementKey });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(res.body.key);
    expect(read.body.keys[0]).toEqual({ id: res.body.keys[0].id, created_by: expect.any(String), created_at: expect.any(String) });
    const own = await t.call('GET', '/applications/key', { key: res.body.key });
    expect(own.body.id).toBe(res.body.id);
  });

  it('generates keys with at least 128 bits of entropy that are all distinct', async () => {
    const app = await create({ name: 'many keys', type: 'private', permissions: ['token:read'], create_key: false });
    expect(app.body.key).toBeUndefined();
    const keys = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const k = await t.call('POST', `/applications/${app.body.id}/keys`, { key: t.managementKey });
      expect(k.status).toBe(201);
      keys.add(k.body.key);
    }
    expect(keys.size).toBe(20);
    for (const k of keys) expect(Buffer.from(k.replace('key_local_', ''), 'base64url').length).toBeGreaterThanOrEqual(16);
    const list = await t.call('GET', `/applications/${app.body.id}/keys`, { key: t.managementKey });
    expect(list.body).toHaveLength(20);
  });

  it('revokes a key: the key stops working at once', async () => {
    const app = await create({ name: 'revoked', type: 'private', permissions: ['token:create'] });
    const ok = await t.call('POST', '/tokens', { key: app.body.key, body: { type: 'token', data: 'x' } });
    expect(ok.status).toBe(201);
    const del = await t.call('DELETE', `/applications/${app.body.id}/keys/${app.body.keys[0].id}`, { key: t.managementKey });
    expect(del.status).toBe(204);
    expect((await t.call('POST', '/tokens', { key: app.body.key, body: { type: 'token', data: 'x' } })).status).toBe(401);
    expect((await t.call('GET', `/applications/${app.body.id}/keys/${app.body.keys[0].id}`, { key: t.managementKey })).status).toBe(404);
  });

  it('updates with PUT (new rules apply at once) and deletes', async () => {
    const app = await create({ name: 'changing', type: 'private', permissions: ['token:create'] });
    const put = await t.call('PUT', `/applications/${app.body.id}`, {
      key: t.managementKey,
      body: { name: 'changed', type: 'private', permissions: ['token:read'] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ name: 'changed', permissions: ['token:read'], modified_by: expect.any(String) });
    expect((await t.call('POST', '/tokens', { key: app.body.key, body: { type: 'token', data: 'x' } })).status).toBe(403);
    expect((await t.call('DELETE', `/applications/${app.body.id}`, { key: t.managementKey })).status).toBe(204);
    expect((await t.call('GET', `/applications/${app.body.id}`, { key: t.managementKey })).status).toBe(404);
    expect((await t.call('GET', '/tokens/x', { key: app.body.key })).status).toBe(401);
  });

  it('pages the application list', async () => {
    const res = await t.call('GET', '/applications?size=2', { key: t.managementKey });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ page_number: 1, page_size: 2 });
    expect(res.body.pagination.total_items).toBeGreaterThanOrEqual(2);
    expect(res.body.data).toHaveLength(2);
  });

  it.each([
    [{ name: 'x', type: 'public', permissions: ['token:read'] }, 'permissions.0'],
    [{ name: 'x', type: 'management', permissions: ['token:create'] }, 'permissions.0'],
    [{ name: '', type: 'private' }, 'name'],
    [{ name: 'x', type: 'robot' }, 'type'],
    [{ name: 'x', type: 'private', rules: [{ priority: 1, container: 'pci', transform: 'reveal', permissions: ['token:read'] }] }, 'rules.0.container'],
    [{ name: 'x', type: 'private', rules: [{ priority: 1, container: '/', transform: 'show', permissions: ['token:read'] }] }, 'rules.0.transform'],
  ])('refuses %j with a 400 naming the field', async (body, field) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toContain(field);
  });

  it('keeps management endpoints to management keys with the right permission', async () => {
    expect((await create({ name: 'x', type: 'private' }, t.privateKey)).status).toBe(403);
    const reader = await create({ name: 'reader', type: 'management', permissions: ['application:read'] });
    expect((await t.call('GET', '/applications', { key: reader.body.key })).status).toBe(200);
    expect((await create({ name: 'x', type: 'private' }, reader.body.key)).status).toBe(403);
    expect((await t.call('GET', '/applications')).status).toBe(401);
  });
});

describe('access rules', () => {
  const CARD = { number: '4111111111111111', expiration_month: 1, expiration_year: 2031 };

  it('applies the first rule by priority that covers the container, with its transform', async () => {
    const app = await create({
      name: 'ruled',
      type: 'private',
      rules: [
        { description: 'pci masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:create'] },
        { description: 'rest revealed', priority: 2, container: '/', transform: 'reveal', permissions: ['token:read', 'token:create'] },
        { description: 'bank redacted', priority: 0, container: '/bank/', transform: 'redact', permissions: ['token:read', 'token:create'] },
      ],
    });
    const key = app.body.key;
    const card = await t.call('POST', '/tokens', { key, body: { type: 'card', data: CARD } });
    const note = await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'plain' } });
    const bank = await t.call('POST', '/tokens', { key, body: { type: 'us_bank_account_number', data: '123456789' } });
    expect((await t.call('GET', `/tokens/${card.body.id}`, { key })).body.data.number).toBe('XXXXXXXXXXXX1111');
    expect((await t.call('GET', `/tokens/${note.body.id}`, { key })).body.data).toBe('plain');
    const redacted = await t.call('GET', `/tokens/${bank.body.id}`, { key });
    expect(redacted.status).toBe(200);
    expect(redacted.body.data).toBeUndefined();
  });

  it('answers 403 when no rule covers the container', async () => {
    const app = await create({
      name: 'general only',
      type: 'private',
      rules: [{ description: 'g', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:create'] }],
    });
    const res = await t.call('POST', '/tokens', { key: app.body.key, body: { type: 'card', data: CARD } });
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain('/pci/high/');
    expect(t.engine.status().tokenCount).toBeGreaterThan(0);
  });

  it('lets a public key create but not read', async () => {
    const app = await create({ name: 'browser', type: 'public', permissions: ['token:create'] });
    const created = await t.call('POST', '/tokens', { key: app.body.key, body: { type: 'card', data: CARD } });
    expect(created.status).toBe(201);
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: app.body.key })).status).toBe(403);
  });
});
