import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../proxy/support/loopback';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * The rows of the spec's error table for pre-configured proxies (vendor-surfaces.md §1.5) not covered by
 * proxy-invoke.test.ts, each seen from a client: the status, the proxy_error body, and whether the destination was called.
 */
let t: TestEngine;
let destination: TestServer;
let useKey: string;
let calls = 0;

const createProxy = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'errors', destination_url: destination.url, ...body } });
  if (res.status !== 201) throw new Error(`proxy not created: ${res.text}`);
  return res.body as { id: string; key: string };
};

const invoke = (key: string, headers: Record<string, string> = {}) =>
  t.call('POST', '/proxy', { key: useKey, body: { amount: 1 }, headers: { 'BT-PROXY-KEY': key, ...headers } });

function expectProxyError(res: ApiResponse, status: number, detail?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
  expect(res.body.proxy_error).toMatchObject({ status });
  if (detail) expect(JSON.stringify(res.body.proxy_error)).toMatch(detail);
}

beforeAll(async () => {
  t = await startTestEngine();
  destination = await startServer(async (req: IncomingMessage, res) => {
    calls += 1;
    for await (const _chunk of req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'caller', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'proxy:invoke'] }] },
  });
  useKey = app.body.key;
});
afterAll(async () => {
  await destination.close();
  await t.stop();
});

describe('errors of a pre-configured call', () => {
  // node22's shortest timeout is 10 s (vendor-surfaces.md §2.6), so this test waits that long.
  it('answers 408 when a transform runs longer than its runtime timeout, without calling the destination', { timeout: 30_000 }, async () => {
    const { key } = await createProxy({
      request_transforms: [{ code: 'module.exports = async () => { for (;;) {} };', options: { runtime: { image: 'node22', timeout: 10 } } }],
    });
    const before = calls;
    expectProxyError(await invoke(key), 408, /longer than its limit of 10 s/);
    expect(calls).toBe(before);
  });

  it('refuses to save code that does not compile: 400 naming the transform and the line, so it never reaches a call', async () => {
    const res = await t.call('POST', '/proxies', {
      key: t.managementKey,
      body: { name: 'broken', destination_url: destination.url, request_transforms: [{ code: 'module.exports = async (req) => {\n  return {' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors['request_transforms[0].code']).toEqual([expect.stringMatching(/does not compile: SyntaxError: .* \(line 2\)/)]);
  });

  it('answers 500 Reactor Runtime Error when a transform returns something that is not a request', async () => {
    const { key } = await createProxy({ request_transforms: [{ code: 'module.exports = async () => 42;' }] });
    expectProxyError(await invoke(key), 500, /Reactor Runtime Error/);
  });

  it('answers 400 for a BT-ENCRYPTED that is not base64 of encrypted token requests, before calling the destination', async () => {
    const { key } = await createProxy({});
    const before = calls;
    expectProxyError(await invoke(key, { 'BT-ENCRYPTED': 'eyJ9' }), 400, /BT-ENCRYPTED must be base64 of a JSON token request/);
    expect(calls).toBe(before);
  });
});
