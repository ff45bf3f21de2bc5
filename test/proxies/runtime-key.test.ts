import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSdk } from '../support/vendor-sdks';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * The runtime key (docs/api.md, Code runtime): a code transform's `bt` and `applicationOptions.apiKey` call this
 * engine with a key of the proxy's application, which the engine makes, keeps sealed, records in History, shows in
 * Settings as the runtime key, and makes again after it is revoked. The code uses the vendor's basis-theory-js.
 */
let t: TestEngine;
let echo: string;
let appId: string;
let invokeKey: string;

const PAN = '4242424242424242';

/** A node-bt request transform whose result goes to the echo destination, which answers it back as `body`. */
const createProxy = async (code: string, application: string | null = appId) => {
  const res = await t.call('POST', '/proxies', {
    key: t.managementKey,
    body: { name: 'runtime', destination_url: echo, request_transforms: [{ code }], ...(application && { application: { id: application } }) },
  });
  if (res.status !== 201) throw new Error(`proxy not created: ${res.text}`);
  return res.body as { id: string; key: string };
};

const invoke = (key: string, body: unknown = {}) => t.call('POST', '/proxy', { key: invokeKey, body, headers: { 'BT-PROXY-KEY': key } });
/** What the transform sent on, as the echo destination saw it. */
const sent = (res: ApiResponse) => JSON.parse(res.body.body);

/** The code tells what it was given: its key (only so the test can try it), and what the key did. */
const USES_BT = `module.exports = async (req) => {
  const made = await req.bt.tokenize({ type: 'card', data: { number: req.args.body.pan, expiration_month: 12, expiration_year: 2030 } });
  const read = await req.bt.tokens.retrieve(made.id);
  const { BasisTheory } = require('@basis-theory/basis-theory-js');
  const own = await new BasisTheory().init(req.applicationOptions.apiKey, { apiBaseUrl: req.applicationOptions.environment });
  const again = await own.tokens.retrieve(made.id);
  return { body: { id: made.id, number: read.data.number, again: again.id, key: req.applicationOptions.apiKey } };
};`;

const runtimeKeys = async () => {
  const apps = (await t.workbench('listApplicationDetails')).body as { id: string; keys: { id: string; key_last4: string; kept: string | null }[] }[];
  return apps.find((a) => a.id === appId)!.keys.filter((k) => k.kept === 'runtime');
};
const keyEntries = async () => {
  await t.engine.history.flush();
  return (await t.engine.history.list(200)).filter((e) => e.path.startsWith(`/applications/${appId}/keys/`));
};

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
  echo = t.engine.echoUrl!;
  const management = nodeSdk(t, t.managementKey);
  const app = await management.applications.create({
    name: 'transform app',
    type: 'private',
    rules: [{ description: 'cards', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
  });
  appId = app.id!;
  invokeKey = (await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'caller', type: 'private', permissions: ['proxy:invoke'] } })).body.key;
});
afterAll(() => t.stop());

describe('the runtime key', () => {
  it("gives bt and applicationOptions.apiKey a key of the proxy's application, made once, recorded by id and shown as the runtime key", async () => {
    const { key } = await createProxy(USES_BT);
    const first = await invoke(key, { pan: PAN });
    expect(first.status).toBe(200);
    const out = sent(first);
    expect(out).toMatchObject({ number: PAN, again: out.id });
    // Made by the proxy's application: its permissions, its name on the token.
    const token = await t.call('GET', `/tokens/${out.id}`, { key: t.privateKey });
    expect(token.body.created_by).toBe(appId);

    const second = sent(await invoke(key, { pan: PAN }));
    expect(second.key).toBe(out.key);
    const kept = await runtimeKeys();
    expect(kept).toHaveLength(1);
    expect(out.key.endsWith(kept[0].key_last4)).toBe(true);

    const entries = await keyEntries();
    expect(entries.map((e) => e.path)).toEqual([`/applications/${appId}/keys/${kept[0].id}`]);
    expect(entries[0]).toMatchObject({ method: 'CREATE', application_id: appId });
    expect(JSON.stringify(entries[0])).toMatch(/runtime key/);
    // The record names the key; the code itself sent it on here, so the proxied request's own entry may show it.
    expect(JSON.stringify(entries)).not.toContain(out.key);
  });

  it('once revoked fails at once, and the next call makes another, recorded', async () => {
    const { key } = await createProxy(USES_BT);
    const before = sent(await invoke(key, { pan: PAN })).key as string;
    const [kept] = await runtimeKeys();
    const revoked = await t.workbench('revokeApplicationKey', { application_id: appId, key_id: kept.id });
    expect(revoked.status).toBe(200);
    expect((await t.call('GET', '/tokens', { key: before })).status).toBe(401);

    const after = sent(await invoke(key, { pan: PAN })).key as string;
    expect(after).not.toBe(before);
    const [remade] = await runtimeKeys();
    expect(remade.id).not.toBe(kept.id);
    expect((await keyEntries()).map((e) => e.path)).toContain(`/applications/${appId}/keys/${remade.id}`);
  });

  it("works only with the application's permissions: what it may not do fails inside the code", async () => {
    const { key } = await createProxy(`module.exports = async (req) => { await req.bt.applications.list(); return { body: {} }; };`);
    const res = await invoke(key);
    expect(res.status).toBe(500);
    expect(res.body.proxy_error).toMatchObject({ detail: 'Reactor Runtime Error' });
    expect(JSON.stringify(res.body.proxy_error.errors)).toMatch(/403|Forbidden/i);
  });

  it('leaves bt null and applicationOptions absent without an application, as the vendor does', async () => {
    const { key } = await createProxy(`module.exports = async (req) => ({ body: { bt: req.bt, options: 'applicationOptions' in req } });`, null);
    expect(sent(await invoke(key))).toEqual({ bt: null, options: false });
  });

  it('answers a clear proxy_error when the application is gone', async () => {
    const gone = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'gone', type: 'private', permissions: ['token:read'] } });
    const { key } = await createProxy(USES_BT, gone.body.id);
    expect((await t.call('DELETE', `/applications/${gone.body.id}`, { key: t.managementKey })).status).toBe(204);
    const res = await invoke(key, { pan: PAN });
    expect(res.status).toBe(409);
    expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
    expect(res.body.proxy_error.detail).toMatch(new RegExp(`application ${gone.body.id}.*no longer exists`));
  });
});
