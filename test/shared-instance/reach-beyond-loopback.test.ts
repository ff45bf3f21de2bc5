import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { callApi, startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * One shared engine bound beyond loopback (issue 42, scopes 1 and 2): reached under its public name, with the safe
 * defaults of a server in force. The client connects to 127.0.0.1 and names the instance by its Host header alone.
 */
const REQUEST_CODE = 'module.exports = async (req) => ({ body: req.args.body, headers: { ...req.args.headers, "X-Code": "ran" } });';
const REACTOR_CODE = 'module.exports = async (req) => ({ raw: { doubled: req.args.n * 2 } });';

let t: TestEngine;
let port: number;
let host: string;
let origin: string;
/** The API as a client of the public name sees it. */
const api = (method: string, path: string, options: Parameters<typeof callApi>[3] = {}) =>
  callApi(t.url, method, path, { ...options, headers: { host, ...options.headers } });
const workbench = (name: string, request: unknown = {}, headers: Record<string, string> = {}) =>
  api('POST', `/_workbench/${name}`, { body: request, headers: { origin, 'X-Tokenbench-Session': t.engine.browserWorkbench!.session, ...headers } });

async function startShared(extra: Parameters<typeof startTestEngine>[0] = {}) {
  port = await freePort();
  host = `tokenbench.test:${port}`;
  origin = `http://${host}`;
  t = await startTestEngine({ inMemory: extra.dataDir === undefined, workbenchRoutes: true, host: '0.0.0.0', port, echoPort: 0, publicUrls: [origin], ...extra } as Parameters<typeof startTestEngine>[0]);
}

describe('bound beyond loopback, without --allow-code', () => {
  let proxiesDir: string;
  beforeAll(async () => {
    proxiesDir = tempDir('tokenbench-reach-proxies-');
    writeFileSync(join(proxiesDir, 'plain.json'), JSON.stringify({ name: 'Plain', destination_url: 'https://example.com' }));
    writeFileSync(join(proxiesDir, 'coded.json'), JSON.stringify({ name: 'Coded', destination_url: 'https://example.com', request_transforms: [{ code: REQUEST_CODE }] }));
    await startShared({ proxiesDir });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(proxiesDir, { recursive: true, force: true });
  });

  it('answers the API under its public name, and refuses a Host it was not given as today', async () => {
    const tokens = await api('GET', '/tokens', { key: t.privateKey });
    expect(tokens.status).toBe(200);
    const foreign = await callApi(t.url, 'GET', '/tokens', { key: t.privateKey, headers: { host: `elsewhere.test:${port}` } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toMatch(/Host/);
    const otherPort = await callApi(t.url, 'GET', '/tokens', { key: t.privateKey, headers: { host: `tokenbench.test:${port + 1}` } });
    expect(otherPort.status).toBe(403);
    const foreignOrigin = await api('GET', '/tokens', { key: t.privateKey, headers: { origin: 'http://elsewhere.test' } });
    expect(foreignOrigin.status).toBe(403);
  });

  it('serves the workbench under that name: its page, and its methods with the session from its own origin', async () => {
    const page = await api('GET', '/ui/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<title>Tokenbench</title>');
    const status = await workbench('getStatus');
    expect(status.status).toBe(200);
    expect(status.body.tokenCount).toBe(0);
    expect(t.engine.browserWorkbench!.url.startsWith(`${origin}/ui/#`)).toBe(true);
    expect(t.engine.browserWorkbench!.launchUrl().startsWith(`${origin}/ui/#`)).toBe(true);
    expect((await workbench('getStatus', {}, { 'X-Tokenbench-Session': 'not-the-session' })).status).toBe(401);
  });

  it('refuses a private destination, but lets the proxy reach the built-in echo destination', async () => {
    const echoPort = new URL(t.engine.echoUrl!).port;
    const echoed = await api('POST', '/proxy', { key: t.privateKey, body: { hi: 1 }, headers: { 'BT-PROXY-URL': `http://127.0.0.1:${echoPort}/v1` } });
    expect(echoed.status).toBe(200);
    const refused = await api('POST', '/proxy', { key: t.privateKey, body: { hi: 1 }, headers: { 'BT-PROXY-URL': `http://127.0.0.1:${await freePort()}/v1` } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(refused.body)).toMatch(/private destinations are denied/);
    const limits = (await workbench('getSettings')).body.limits.denyPrivateDestinations;
    expect(limits.value).toBe(true);
    expect(limits.pinnedBy).toMatch(/--host 0\.0\.0\.0/);
    expect((await workbench('changeLimits', { denyPrivateDestinations: false })).status).toBe(409);
  });

  it('refuses code transforms and reactors, naming --allow-code, and does not load a proxies file with code', async () => {
    const proxy = await api('POST', '/proxies', { key: t.managementKey, body: { name: 'coded', destination_url: 'https://example.com', request_transforms: [{ code: REQUEST_CODE }] } });
    expect(proxy.status).toBe(403);
    expect(proxy.body.detail).toContain('--allow-code');
    const plain = await api('POST', '/proxies', { key: t.managementKey, body: { name: 'plain', destination_url: 'https://example.com' } });
    expect(plain.status).toBe(201);
    const reactor = await api('POST', '/reactors', { key: t.managementKey, body: { name: 'doubler', code: REACTOR_CODE } });
    expect(reactor.status).toBe(403);
    expect(reactor.body.detail).toContain('--allow-code');
    const files = (await workbench('listProxyFiles')).body.files as { path: string; state: string; problems: string[] }[];
    expect(files.find((f) => f.path === 'plain.json')?.state).toBe('loaded');
    const coded = files.find((f) => f.path === 'coded.json')!;
    expect(coded.state).toBe('error');
    expect(coded.problems.join(' ')).toContain('--allow-code');
  });

  it('refuses the workbench methods that choose a folder, and says the folders are fixed by the operator', async () => {
    const elsewhere = tempDir('tokenbench-reach-elsewhere-');
    try {
      const collections = await workbench('setCollectionsFolder', { folder: elsewhere });
      expect(collections.status).toBe(409);
      expect(collections.body.detail).toMatch(/operator/);
      const proxies = await workbench('setProxiesFolder', { folder: elsewhere });
      expect(proxies.status).toBe(409);
      expect(proxies.body.detail).toMatch(/operator/);
      expect((await workbench('getSettings')).body.collections.pinnedBy).toMatch(/--host 0\.0\.0\.0/);
      expect((await workbench('listProxyFiles')).body.pinnedBy).toBe(`--proxies ${proxiesDir}`);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('code stored before the instance was shared', () => {
  let dataDir: string;
  afterEach(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is not run without --allow-code, and runs with it', async () => {
    dataDir = tempDir('tokenbench-reach-data-');
    const laptop = await startTestEngine({ dataDir, echoPort: 0 });
    const proxy = await laptop.call('POST', '/proxies', { key: laptop.managementKey, body: { name: 'coded', destination_url: 'https://example.com', request_transforms: [{ code: REQUEST_CODE }] } });
    const reactor = await laptop.call('POST', '/reactors', { key: laptop.managementKey, body: { name: 'doubler', code: REACTOR_CODE } });
    expect([proxy.status, reactor.status]).toEqual([201, 201]);
    await laptop.stop();

    await startShared({ dataDir });
    const echo = () => `http://127.0.0.1:${new URL(t.engine.echoUrl!).port}`;
    const invoked = await api('POST', '/proxy', { key: laptop.privateKey, body: { a: 1 }, headers: { 'BT-PROXY-KEY': proxy.body.key, 'BT-PROXY-URL': echo() } });
    expect(invoked.status).toBe(403);
    expect(JSON.stringify(invoked.body)).toContain('--allow-code');
    const reacted = await api('POST', `/reactors/${reactor.body.id}/react`, { key: laptop.privateKey, body: { args: { n: 2 } } });
    expect(reacted.status).toBe(403);
    expect(JSON.stringify(reacted.body)).toContain('--allow-code');
    await t.stop();

    await startShared({ dataDir, allowCode: true });
    const again = await api('POST', `/reactors/${reactor.body.id}/react`, { key: laptop.privateKey, body: { args: { n: 2 } } });
    expect(again.status).toBe(200);
    expect(again.body.raw).toEqual({ doubled: 4 });
    const made = await api('POST', '/proxies', { key: laptop.managementKey, body: { name: 'coded 2', destination_url: echo(), request_transforms: [{ code: REQUEST_CODE }] } });
    expect(made.status).toBe(201);
    const through = await api('POST', '/proxy', { key: laptop.privateKey, body: { a: 1 }, headers: { 'BT-PROXY-KEY': made.body.key } });
    expect(through.status, through.text).toBe(200);
    expect(through.body.headers['x-code']).toBe('ran');
  });
});

describe('on loopback, as today', () => {
  afterEach(() => t.stop());

  it('runs code and lets Settings choose the folders, with no new flag', async () => {
    t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
    const reactor = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'doubler', code: REACTOR_CODE } });
    expect(reactor.status).toBe(201);
    const folder = tempDir('tokenbench-reach-folder-');
    mkdirSync(join(folder, 'x'));
    try {
      expect((await t.workbench('setProxiesFolder', { folder })).status).toBe(200);
      expect((await t.workbench('getSettings')).body.limits.denyPrivateDestinations.pinnedBy).toBeNull();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
