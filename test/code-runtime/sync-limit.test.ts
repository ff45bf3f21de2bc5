import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../proxy/support/loopback';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * The synchronous limit of code (vendor-surfaces.md §3.6–3.7: 30 s, node22 at most that whatever its `timeout`),
 * shortened by the engine option so that a test sees it end a react and a proxy's code transform: the status and
 * problem a client gets, and the code's worker terminated rather than left running.
 */
let t: TestEngine;
let witness: TestServer;
let destination: TestServer;
let invokeKey: string;
const witnessed: string[] = [];
let destinationCalls = 0;

const LIMIT_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Code that, asked to wait, outlasts the limit and then tells the witness it is still running (after beforeAll). */
const lateWitness = (said: string) =>
  `await new Promise((resolve) => setTimeout(resolve, ${LIMIT_MS * 2})); await require('axios').post(${JSON.stringify(`${witness.url}/${said}`)}, {});`;

const createReactor = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'slow', ...body } });
  if (res.status !== 201) throw new Error(`reactor not created: ${res.text}`);
  return res.body.id as string;
};

/** The vendor's problem for a timeout (a proxy_error also carries its `type`). */
function expectTimedOut(problem: Record<string, unknown>) {
  expect(problem).toMatchObject({
    title: 'One or more validation errors occurred.',
    status: 408,
    detail: 'Code Timed Out',
    errors: { error: [`The code ran longer than its limit of ${LIMIT_MS / 1000} s and was stopped`] },
  });
}

/** After the limit ended the call, waits past the moment the code would have called the witness, had it run on. */
async function expectStopped(said: string) {
  await sleep(LIMIT_MS * 2);
  expect(witnessed).not.toContain(`/${said}`);
}

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, codeSyncLimitMs: LIMIT_MS });
  witness = await startServer((req, res) => {
    witnessed.push(req.url ?? '');
    res.end('{}');
  });
  destination = await startServer((_req, res) => {
    destinationCalls += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'invoker', type: 'private', permissions: ['reactor:invoke', 'proxy:invoke'] },
  });
  invokeKey = app.body.key;
});
afterAll(async () => {
  await witness.close();
  await destination.close();
  await t.stop();
});

const react = (id: string, args: unknown): Promise<ApiResponse> => t.call('POST', `/reactors/${id}/react`, { key: invokeKey, body: { args } });

describe('a synchronous react past the limit', () => {
  const images = [
    {
      image: 'node-bt',
      runtime: undefined,
      code: () => `module.exports = async (req) => { if (req.args.wait) { ${lateWitness('node-bt')} } return { raw: 'quick' }; };`,
      quick: { raw: 'quick' },
    },
    {
      // Its own timeout is longer than the limit: the limit wins for a synchronous react.
      image: 'node22',
      runtime: { image: 'node22', timeout: 10 },
      code: () => `module.exports = async (event) => { if (event.req.args.wait) { ${lateWitness('node22')} } return { res: { body: { quick: true } } }; };`,
      quick: { quick: true },
    },
  ];
  it.each(images)('answers $image code with 408 Code Timed Out, stops it, and the reactor answers its next react', { timeout: 15_000 }, async ({ image, runtime, code, quick }) => {
    const id = await createReactor({ code: code(), runtime });
    const res = await react(id, { wait: true });
    expect(res.status, res.text).toBe(408);
    expectTimedOut(res.body);
    await expectStopped(image);
    const next = await react(id, { wait: false });
    expect(next.status).toBe(200);
    expect(next.body).toEqual(quick);
  });
});

describe("a proxy's node-bt code transform past the limit", () => {
  it('answers 408 in proxy_error without calling the destination, stops the code, and the proxy answers its next call', { timeout: 15_000 }, async () => {
    const code = `module.exports = async (req) => { if (req.args.headers['x-wait']) { ${lateWitness('proxy')} } return { body: req.args.body, headers: req.args.headers }; };`;
    const proxy = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'slow', destination_url: destination.url, request_transforms: [{ code }] } });
    expect(proxy.status, proxy.text).toBe(201);
    const call = (headers: Record<string, string>) => t.call('POST', '/proxy', { key: invokeKey, body: { amount: 1 }, headers: { 'BT-PROXY-KEY': proxy.body.key, ...headers } });
    const res = await call({ 'x-wait': 'yes' });
    expect(res.status, res.text).toBe(408);
    expectTimedOut(res.body.proxy_error);
    expect(destinationCalls).toBe(0);
    await expectStopped('proxy');
    const next = await call({});
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ ok: true });
    expect(destinationCalls).toBe(1);
  });
});
