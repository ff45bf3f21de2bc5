import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * The error rows and limits of reactors (vendor-surfaces.md §0.2, §3.1–3.7), each as a client sees it: the status and
 * the problem body, over plain HTTP.
 */
let t: TestEngine;
let invokeKey: string;
let cardId: string;

const createReactor = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'errors', ...body } });
  if (res.status !== 201) throw new Error(`reactor not created: ${res.text}`);
  return res.body as { id: string; state: string };
};

const react = (id: string, body: unknown = { args: {} }, key = invokeKey) => t.call('POST', `/reactors/${id}/react`, { key, body });

function expectProblem(res: ApiResponse, status: number, detail?: RegExp) {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ status });
  if (detail) expect(JSON.stringify(res.body)).toMatch(detail);
}

const throwing = (error: string, argument = "'why'") =>
  `const errors = require('@basis-theory/basis-theory-reactor-formulas-sdk-js'); module.exports = async () => { throw new errors.${error}(${argument}); };`;

/** The vendor's 5-minute limit of an asynchronous node-bt run, shortened so that a test can see it end one. */
const ASYNC_LIMIT_MS = 1500;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, reactorAsyncLimitMs: ASYNC_LIMIT_MS });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'invoker', type: 'private', rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['reactor:invoke'] }] },
  });
  invokeKey = app.body.key;
  const card = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: '4242424242424242' } });
  cardId = card.body.id;
});
afterAll(() => t.stop());

describe('/reactors management errors', () => {
  it('refuses a key without the reactor permission (403), and a private key on management routes', async () => {
    const reader = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'reader', type: 'management', permissions: ['reactor:read'] } });
    expectProblem(await t.call('POST', '/reactors', { key: reader.body.key, body: { name: 'x', code: 'module.exports = async () => ({})' } }), 403, /reactor:create/);
    expectProblem(await t.call('GET', '/reactors', { key: t.privateKey }), 403);
    expect((await t.call('GET', '/reactors', { key: reader.body.key })).status).toBe(200);
  });

  it('answers 401 without a key, or with an unknown one', async () => {
    expectProblem(await t.call('GET', '/reactors'), 401);
    expectProblem(await t.call('POST', '/reactors', { key: 'key_local_unknown', body: {} }), 401);
    const { id } = await createReactor({ code: 'module.exports = async () => ({})' });
    expectProblem(await t.call('POST', `/reactors/${id}/react`, { body: { args: {} } }), 401);
    expectProblem(await t.call('GET', `/reactors/${id}/results/3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f`), 401);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expectProblem(await t.call('GET', '/reactors/3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f', { key: t.managementKey }), 404, /Reactor .* not found/);
    expectProblem(await t.call('DELETE', '/reactors/not-a-uuid', { key: t.managementKey }), 404);
    expectProblem(await react('3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f'), 404);
  });

  it('validates the body with field paths: name, code length, configuration entries, runtime, removed formulas', async () => {
    const bad = await t.call('POST', '/reactors', {
      key: t.managementKey,
      body: { code: 'x'.repeat(50_001), configuration: Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, 'v'])), runtime: { image: 'node-bt', timeout: 10 } },
    });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['code', 'configuration', 'name', 'runtime.timeout']);
    expectProblem(await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'f', code: 'x', formula: { id: 'abc' } } }), 400, /formula/);
    expectProblem(await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'i', code: 'x', runtime: { image: 'node16' } } }), 400, /image/);
  });

  it('takes a node22 timeout over 30 s only with async: true, and echoes async', async () => {
    const code = 'module.exports = async () => ({ res: { body: {} } })';
    const sync = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 's', code, runtime: { image: 'node22', timeout: 60 } } });
    expectProblem(sync, 400);
    expect(Object.keys(sync.body.errors)).toEqual(['runtime.timeout']);
    expectProblem(await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'b', code, runtime: { image: 'node-bt', async: true } } }), 400, /runtime\.async/);
    const long = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'a', code, runtime: { image: 'node22', timeout: 900, async: true } } });
    expect(long.status).toBe(201);
    expect(long.body.runtime).toEqual({ image: 'node22', timeout: 900, async: true });
    expectProblem(await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'c', code, runtime: { image: 'node22', timeout: 901, async: true } } }), 400);
  });

  it('refuses a management application, and any application for node22 code', async () => {
    const managementApp = (await t.call('GET', '/applications?type=management', { key: t.managementKey })).body.data[0].id;
    expectProblem(await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'm', code: 'x', application: { id: managementApp } } }), 400, /application/);
    const privateApp = (await t.call('GET', '/applications?type=private', { key: t.managementKey })).body.data[0].id;
    const node22 = { name: 'n', code: 'module.exports = async () => ({ res: { body: {} } })', runtime: { image: 'node22' }, application: { id: privateApp } };
    expectProblem(await t.call('POST', '/reactors', { key: t.managementKey, body: node22 }), 400, /runtime\.permissions/);
  });

  it('takes a merge patch only as application/merge-patch+json (415), and refuses null on name (400)', async () => {
    const { id } = await createReactor({ code: 'module.exports = async () => ({})' });
    expectProblem(await t.call('PATCH', `/reactors/${id}`, { key: t.managementKey, body: { name: 'y' } }), 415);
    const patched = await t.call('PATCH', `/reactors/${id}`, { key: t.managementKey, body: { name: null }, headers: { 'content-type': 'application/merge-patch+json' } });
    expectProblem(patched, 400, /name/);
  });

  it('answers 410 for the removed reactor formulas', async () => {
    expectProblem(await t.call('GET', '/reactor-formulas', { key: t.managementKey }), 410, /removed/);
    expectProblem(await t.call('POST', '/reactor-formulas', { key: t.managementKey, body: {} }), 410);
    expectProblem(await t.call('GET', '/reactor-formulas/3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f', { key: t.managementKey }), 410);
  });
});

describe('react errors', () => {
  it('refuses a key that lacks reactor:invoke (403), and a public key', async () => {
    const { id } = await createReactor({ code: 'module.exports = async () => ({ raw: 1 })' });
    const reader = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'r', type: 'private', permissions: ['token:read'] } });
    expectProblem(await react(id, { args: {} }, reader.body.key), 403, /reactor:invoke/);
    const pub = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'p', type: 'public', permissions: ['token:create'] } });
    expectProblem(await react(id, { args: {} }, pub.body.key), 403, /private/);
    expect((await react(id, { args: {} }, t.privateKey)).status).toBe(200);
  });

  it('answers 400 for a body that is not a JSON object', async () => {
    const { id } = await createReactor({ code: 'module.exports = async () => ({ raw: 1 })' });
    expectProblem(await react(id, [1, 2]), 400, /JSON object/);
    expectProblem(await react(id, 'args'), 400, /JSON object/);
  });

  it('answers 400 for an unknown token and past 100 expressions, 403 for a token outside the key’s containers', async () => {
    const { id } = await createReactor({ code: 'module.exports = async (req) => ({ raw: req.args })' });
    expectProblem(await react(id, { args: { a: '{{ 3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f }}' } }), 400, /not found/);
    const general = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'v', containers: ['/general/'] } });
    const many = Array.from({ length: 101 }, () => `{{ ${general.body.id} }}`);
    expectProblem(await react(id, { args: { many } }), 400, /100/);
    expect((await react(id, { args: { many: many.slice(0, 100) } })).body.raw.many).toHaveLength(100);
    expectProblem(await react(id, { args: { card: `{{ ${cardId} }}` } }), 403, /pci/);
  });

  it('answers 422 for code that does not compile or does not export a function', async () => {
    expectProblem(await react((await createReactor({ code: 'module.exports = async () => {' })).id), 422);
    expectProblem(await react((await createReactor({ code: 'module.exports = 42;' })).id), 422, /function/);
  });

  it('answers each reactor error class with its status and the vendor body; anything else thrown is a 500', async () => {
    for (const [error, status] of [
      ['AuthenticationError', 401],
      ['AuthorizationError', 403],
      ['BadRequestError', 400],
      ['InvalidPaymentMethodError', 402],
      ['InvalidReactorConfigurationError', 400],
      ['RateLimitError', 429],
      ['ReactorRuntimeError', 500],
      ['ServiceUnavailableError', 503],
    ] as const) {
      const res = await react((await createReactor({ code: throwing(error) })).id);
      expectProblem(res, status);
      expect(res.body).toMatchObject({ title: 'One or more validation errors occurred.', errors: { error: ['why'] } });
    }
    const plain = await react((await createReactor({ code: 'module.exports = async () => { throw new Error("boom"); };' })).id);
    expectProblem(plain, 500, /boom/);
    expect(plain.body.detail).toBe('Reactor Runtime Error');
  });

  it('answers a CustomHttpResponseError as given', async () => {
    const res = await react((await createReactor({ code: throwing('CustomHttpResponseError', "{ status: 418, headers: { 'x-why': 'tea' }, body: { brewed: false } }") })).id);
    expect(res.status).toBe(418);
    expect(res.headers['x-why']).toBe('tea');
    expect(res.body).toEqual({ brewed: false });
  });

  it('answers 502 when node22 code throws, and node22 res as the response', async () => {
    const thrown = await createReactor({ code: 'module.exports = async () => { throw new Error("upstream"); };', runtime: { image: 'node22' } });
    expectProblem(await react(thrown.id), 502, /upstream/);
    const ok = await createReactor({ code: 'module.exports = async (event) => ({ res: { statusCode: 201, headers: { "x-n": "1" }, body: { got: event.req.args } } });', runtime: { image: 'node22' } });
    const res = await react(ok.id, { args: { n: 1 } });
    expect(res.status).toBe(201);
    expect(res.headers['x-n']).toBe('1');
    expect(res.body).toEqual({ got: { n: 1 } });
  });

  it('answers 409 for a reactor that is not active (node22 dependencies unavailable)', async () => {
    const failed = await createReactor({ code: 'module.exports = async () => ({ res: { body: {} } })', runtime: { image: 'node22', dependencies: { 'left-pad': '1.3.0' } } });
    expect(failed.state).toBe('failed');
    expectProblem(await react(failed.id), 409, /dependency_unavailable/);
  });

  it('answers 409 when the reactor\'s application was deleted, saying to give it another', async () => {
    const app = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'gone soon', type: 'private', permissions: ['token:read'] } });
    const { id } = await createReactor({ application: { id: app.body.id }, code: 'module.exports = async (req) => ({ raw: { bt: req.bt !== null } });' });
    expect((await react(id)).body).toEqual({ raw: { bt: true } });
    expect((await t.call('DELETE', `/applications/${app.body.id}`, { key: t.managementKey })).status).toBe(204);
    expectProblem(await react(id), 409, new RegExp(`application ${app.body.id} no longer exists: give the reactor another with PUT or PATCH /reactors/${id}`));
  });

  it('answers 413 for a body over 1 MB', async () => {
    const { id } = await createReactor({ code: 'module.exports = async () => ({})' });
    expectProblem(await react(id, { args: { big: 'x'.repeat(1024 * 1024) } }), 413);
  });

  // node22's shortest timeout is 10 s (vendor-surfaces.md §2.6), so this test waits that long.
  it('answers 408 when the code runs longer than its timeout', { timeout: 30_000 }, async () => {
    const { id } = await createReactor({ code: 'module.exports = async () => { for (;;) {} };', runtime: { image: 'node22', timeout: 10 } });
    expectProblem(await react(id), 408, /longer than its limit of 10 s/);
  });
});

describe('react-async and results', () => {
  it('checks the request before answering 202 (unknown token → 400), and 404 for an unknown result or another reactor’s', async () => {
    const { id } = await createReactor({ code: 'module.exports = async (req) => ({ raw: req.args })' });
    const other = await createReactor({ code: 'module.exports = async () => ({})' });
    expectProblem(await t.call('POST', `/reactors/${id}/react-async`, { key: invokeKey, body: { args: { a: '{{ 3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f }}' } } }), 400);
    const started = await t.call('POST', `/reactors/${id}/react-async`, { key: invokeKey, body: { args: { a: 1 } } });
    expect(started.status).toBe(202);
    const requestId = started.body.asyncReactorRequestId as string;
    expectProblem(await t.call('GET', `/reactors/${other.id}/results/${requestId}`, { key: invokeKey }), 404);
    expectProblem(await t.call('GET', `/reactors/${id}/results/3f0b2c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f`, { key: invokeKey }), 404);
  });

  it('ends an asynchronous node-bt run at its limit, and gives the timeout as its result', { timeout: 15_000 }, async () => {
    const { id } = await createReactor({ code: 'module.exports = async () => { await new Promise((resolve) => setTimeout(resolve, 60_000)); return {}; };' });
    const started = await t.call('POST', `/reactors/${id}/react-async`, { key: invokeKey, body: { args: {} } });
    expect(started.status).toBe(202);
    let res: ApiResponse;
    do res = await t.call('GET', `/reactors/${id}/results/${started.body.asyncReactorRequestId}`, { key: invokeKey });
    while (res.status === 200 && res.body.status === 'pending');
    expectProblem(res, 408, /longer than its limit/);
  });

  it('gives a failed run’s status and problem as its result', async () => {
    const { id } = await createReactor({ code: throwing('InvalidPaymentMethodError') });
    const started = await t.call('POST', `/reactors/${id}/react-async`, { key: invokeKey, body: { args: {} } });
    let res: ApiResponse;
    do res = await t.call('GET', `/reactors/${id}/results/${started.body.asyncReactorRequestId}`, { key: invokeKey });
    while (res.status === 200 && res.body.status === 'pending');
    expectProblem(res, 402, /why/);
  });
});
