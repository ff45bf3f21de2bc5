import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * node22 code's `applicationOptions.apiKey` (docs/api.md, Code runtime): a key made for the call that holds exactly
 * `options.runtime.permissions`, of an application the engine keeps for that transform, and revoked when the call
 * ends however it ends. The code calls this engine with `fetch`, as the vendor's node22 samples do.
 */
let t: TestEngine;
let echo: string;
let invokeKey: string;
let tokenId: string;

/** A node22 request transform whose result goes to the echo destination, which answers it back as `body`. */
const createProxy = async (name: string, code: string, runtime: Record<string, unknown>) => {
  const res = await t.call('POST', '/proxies', {
    key: t.managementKey,
    body: { name, destination_url: echo, request_transforms: [{ code, options: { runtime: { image: 'node22', ...runtime } } }] },
  });
  if (res.status !== 201) throw new Error(`proxy not created: ${res.text}`);
  return res.body as { id: string; key: string };
};

const invoke = (key: string, body: unknown = {}) => t.call('POST', '/proxy', { key: invokeKey, body, headers: { 'BT-PROXY-KEY': key } });
/** What the transform sent on, as the echo destination saw it. */
const sent = (res: ApiResponse) => JSON.parse(res.body.body);

/** The code reads a token and tries to make one with its key, and tells what happened (and its key, so the test can try it). */
const READS_AND_CREATES = `module.exports = async (event) => {
  const { apiKey, environment } = event.applicationOptions;
  const headers = { 'BT-API-KEY': apiKey, 'Content-Type': 'application/json' };
  const read = await fetch(environment + '/tokens/' + event.req.body.id, { headers });
  const made = await fetch(environment + '/tokens', { method: 'POST', headers, body: JSON.stringify({ type: 'token', data: 'x' }) });
  return { req: { body: { read: read.status, id: (await read.json()).id, create: made.status, key: apiKey, environment } } };
};`;

/** The applications the engine keeps for `proxyName`'s transforms, with their keys. */
const runtimeApplications = async (proxyName: string) => {
  const apps = (await t.call('GET', '/applications?size=100', { key: t.managementKey })).body.data as { id: string; name: string; type: string; permissions: string[] }[];
  const mine = apps.filter((a) => a.name.includes(proxyName));
  return Promise.all(mine.map(async (a) => ({ ...a, keys: (await t.call('GET', `/applications/${a.id}/keys`, { key: t.managementKey })).body as unknown[] })));
};

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
  echo = t.engine.echoUrl!;
  invokeKey = (await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'caller', type: 'private', permissions: ['proxy:invoke'] } })).body.key;
  tokenId = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'secret' } })).body.id;
});
afterAll(() => t.stop());

describe('the node22 runtime key', () => {
  it('holds exactly runtime.permissions: token:read reads, token:create is refused 403, and the key is revoked when the call ends', async () => {
    const { key } = await createProxy('reader', READS_AND_CREATES, { permissions: ['token:read'] });
    const res = await invoke(key, { id: tokenId });
    expect(res.status).toBe(200);
    const out = sent(res);
    expect(out).toMatchObject({ read: 200, id: tokenId, create: 403, environment: t.engine.url });
    expect((await t.call('GET', `/tokens/${tokenId}`, { key: out.key })).status).toBe(401);

    // Each call gets its own key; the application stays, keyless between calls, holding only that permission.
    const again = sent(await invoke(key, { id: tokenId }));
    expect(again.key).not.toBe(out.key);
    const apps = await runtimeApplications('reader');
    expect(apps).toHaveLength(1);
    expect(apps[0]).toMatchObject({ type: 'private', permissions: ['token:read'], keys: [] });

    // History tells, once and by id, that the engine set the application up; the keys of each call are not recorded.
    await t.engine.history.flush();
    const entries = (await t.engine.history.list(200)).filter((e) => e.kind === 'workbench' && e.path.startsWith(`/applications/${apps[0].id}`));
    expect(entries.map((e) => [e.method, e.path])).toEqual([['UPDATE', `/applications/${apps[0].id}`]]);
    expect(JSON.stringify(entries)).toMatch(/token:read/);
    expect(JSON.stringify(entries)).not.toContain(out.key);
    // The code's own calls with the key are in History as any client's, their key header hidden.
    const calls = (await t.engine.history.list(200)).filter((e) => e.application_id === apps[0].id && e.kind !== 'workbench');
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(calls)).not.toContain(out.key);
  });

  it('follows a change of permissions: with token:create added the same code may create', async () => {
    const { id, key } = await createProxy('grower', READS_AND_CREATES, { permissions: ['token:read'] });
    expect(sent(await invoke(key, { id: tokenId })).create).toBe(403);
    const patched = await t.call('PATCH', `/proxies/${id}`, {
      key: t.managementKey,
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { request_transforms: [{ code: READS_AND_CREATES, options: { runtime: { image: 'node22', permissions: ['token:read', 'token:create'] } } }] },
    });
    expect(patched.status).toBe(204);
    expect(sent(await invoke(key, { id: tokenId })).create).toBe(201);
    expect((await runtimeApplications('grower'))[0].permissions.sort()).toEqual(['token:create', 'token:read']);
  });

  it('sets the application back to exactly the permissions when someone gave it more', async () => {
    const { key } = await createProxy('widened', READS_AND_CREATES, { permissions: ['token:read'] });
    await invoke(key, { id: tokenId });
    const [app] = await runtimeApplications('widened');
    const widened = await t.call('PUT', `/applications/${app.id}`, { key: t.managementKey, body: { name: app.name, permissions: ['token:read', 'token:create'] } });
    expect(widened.status).toBe(200);
    expect(sent(await invoke(key, { id: tokenId })).create).toBe(403);
    expect((await runtimeApplications('widened'))[0].permissions).toEqual(['token:read']);
  });

  it('takes the applications it kept with the proxy when the proxy is deleted', async () => {
    const { id, key } = await createProxy('deleted', READS_AND_CREATES, { permissions: ['token:read'] });
    await invoke(key, { id: tokenId });
    expect(await runtimeApplications('deleted')).toHaveLength(1);
    expect((await t.call('DELETE', `/proxies/${id}`, { key: t.managementKey })).status).toBe(204);
    expect(await runtimeApplications('deleted')).toEqual([]);

    const other = await createProxy('deleted in the page', READS_AND_CREATES, { permissions: ['token:read'] });
    await invoke(other.key, { id: tokenId });
    expect((await t.workbench('deleteProxy', { id: other.id })).status).toBe(200);
    expect(await runtimeApplications('deleted in the page')).toEqual([]);
  });

  it('revokes the key when the code fails', async () => {
    const { key } = await createProxy('thrower', `module.exports = async (event) => { throw new Error('no ' + event.applicationOptions.apiKey.length); };`, { permissions: ['token:read'] });
    const res = await invoke(key);
    expect(res.status).toBe(502);
    expect(JSON.stringify(res.body)).toContain('no ');
    const apps = await runtimeApplications('thrower');
    expect(apps).toHaveLength(1);
    expect(apps[0].keys).toEqual([]);
  });

  // node22's shortest timeout is 10 s (vendor-surfaces.md §2.6), so this test waits that long.
  it('revokes the key when the code runs out of time', { timeout: 30_000 }, async () => {
    const { key } = await createProxy('looper', `module.exports = async (event) => { if (event.applicationOptions.apiKey) for (;;) {} };`, { permissions: ['token:read'], timeout: 10 });
    const res = await invoke(key);
    expect(res.status).toBe(408);
    const apps = await runtimeApplications('looper');
    expect(apps).toHaveLength(1);
    expect(apps[0].keys).toEqual([]);
  });

  it('gives code without permissions no key, as node-bt code without an application gets none', async () => {
    const { key } = await createProxy('keyless', `module.exports = async (event) => ({ req: { body: { options: 'applicationOptions' in event } } });`, {});
    expect(sent(await invoke(key))).toEqual({ options: false });
    expect(await runtimeApplications('keyless')).toEqual([]);
  });

  it('refuses at save a permission that is not one, and permissions no one application can hold, naming the field', async () => {
    const save = (permissions: string[]) =>
      t.call('POST', '/proxies', {
        key: t.managementKey,
        body: { name: 'bad', destination_url: echo, request_transforms: [{ code: 'module.exports = async (e) => e;', options: { runtime: { image: 'node22', permissions } } }] },
      });
    const unknown = await save(['token:read', 'token:fly']);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toHaveProperty(['request_transforms[0].options.runtime.permissions[1]']);
    const mixed = await save(['token:read', 'proxy:create']);
    expect(mixed.status).toBe(400);
    expect(mixed.body.errors).toHaveProperty(['request_transforms[0].options.runtime.permissions']);
  });
});
