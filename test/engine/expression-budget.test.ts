import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPRESSION_BUDGET } from '../../electron/engine/expressions/expression-budget';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * Every request's expressions share one budget (see expression-budget): over it, a 400 naming the expression, in the
 * contract's format, and the service goes on answering. The costly cases are those an attacker with a local key
 * found; each of them held the event loop for seconds to minutes, or ended the process, before the budget.
 */
const NESTED_PATH = '$..[?@..[?@..[?@..[?@..[?@..[?@..zz]]]]]]';
const OVER_BUDGET = /^Expression \{\{.*\}\} is over the request's expression budget: /;

let t: TestEngine;
let revealKey: string;
let publicKey: string;
let textId: string;
let cardId: string;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: {
      name: 'budget',
      type: 'private',
      rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:use'] }],
    },
  });
  revealKey = app.body.key;
  publicKey = (await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'public', type: 'public', permissions: ['token:create'] } })).body.key;
  textId = (await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: 'hello' } })).body.id;
  cardId = (await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: { a: [[1, [2]], { b: [3, { c: 4 }] }], d: [[5]] } } })).body.id;
});
afterAll(() => t.stop());

function expectOverBudget(res: ApiResponse, expression: string, wrapped = false) {
  expect(res.status).toBe(400);
  const problem = wrapped ? res.body.proxy_error : res.body;
  expect(problem).toMatchObject({ type: 'about:blank', status: 400 });
  expect(problem.detail).toMatch(OVER_BUDGET);
  expect(problem.detail).toContain(expression);
  if (wrapped) expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
  else expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

const detokenize = (body: unknown) => t.call('POST', '/detokenize', { key: revealKey, body });

describe('a JSONPath nested filters deep', () => {
  const expression = (id: string) => `{{ ${id} | json: '${NESTED_PATH}' }}`;

  it('is refused as a fingerprint expression when the token is created, even with a public key', async () => {
    const fingerprint = `{{ data | json: '${NESTED_PATH}' }}`;
    const res = await t.call('POST', '/tokens', { key: publicKey, body: { type: 'token', data: [[[[1]]]], fingerprint_expression: fingerprint } });
    expectOverBudget(res, fingerprint);
  });

  it('is refused in a /proxy body, as a proxy_error that never reaches the destination', async () => {
    const res = await t.call('POST', '/proxy', { key: revealKey, body: { v: expression(cardId) }, headers: { 'BT-PROXY-URL': t.engine.echoUrl! } });
    expectOverBudget(res, expression(cardId), true);
  });

  it('is refused in a /detokenize body', async () => {
    expectOverBudget(await detokenize({ v: expression(cardId) }), expression(cardId));
  });

  it('is refused, less deep, once the query could visit more nodes than the budget allows', async () => {
    const wide = { rows: Array.from({ length: 300 }, (_, i) => ({ i, tags: [i, [i]] })) };
    const id = (await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: wide } })).body.id;
    const costly = `{{ ${id} | json: '$..[?@..[?@..zz]]' }}`;
    expectOverBudget(await detokenize({ v: costly }), costly);
    // A query of the usual kind over the same token is well within it.
    expect((await detokenize({ v: `{{ ${id} | json: '$.rows[7].tags[1][0]' }}` })).body).toEqual({ v: '7' });
  });
});

describe('filters that build large strings or arrays', () => {
  it.each([
    [`pad_left: 16000000, 'x'`],
    [`pad_left: 900000, 'x' | split: ''`],
    [`pad_left: 20000, 'x' | split: '' | where_exp: 'c', 'c == "x"' | where_exp: 'c', 'c == "x"'`],
    [`pad_left: 30000, 'x' | split: '' | sort | join: ''`],
  ])('are refused before they run, over the budget: %s', async (chain) => {
    const expression = `{{ ${textId} | ${chain} }}`;
    expectOverBudget(await detokenize({ v: expression }), expression);
  });

  it('are charged to one budget per request: each expression alone fits, together they do not', async () => {
    const half = `{{ ${textId} | pad_left: ${Math.floor(EXPRESSION_BUDGET.memory * 0.6)}, 'x' }}`;
    expect((await detokenize({ v: half })).status).toBe(200);
    expectOverBudget(await detokenize({ a: half, b: half }), half);
  });

  it('a token mask that is too costly to render is refused when the token is created, naming the mask', async () => {
    const mask = `{{ data | pad_left: 1500000, 'x' | split: '' | join: '' }}`;
    const res = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: 'x', mask } });
    expect(res.status).toBe(400);
    expect(res.body.errors.mask[0]).toMatch(/characters or items/);
    expect(res.body.errors.mask[0]).toContain(mask);
    // A mask that fits is rendered as ever.
    const fits = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: 'secret', mask: "{{ data | pad_left: 8, '*' }}" } });
    expect(fits.status).toBe(201);
    expect((await t.call('GET', `/tokens/${fits.body.id}`, { key: t.privateKey })).body.data).toBe('**secret');
  });

  it('leave the service answering others', async () => {
    expect((await t.call('GET', '/tokens?size=1', { key: revealKey })).status).toBe(200);
  });
});

describe('--max-expressions', () => {
  it('governs /detokenize as it does the proxy: 300 paddings are a 400 naming the limit, not a heap out of memory', async () => {
    const body = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}`, `{{ ${textId} | pad_left: 16000000, 'x' }}`]));
    const res = await detokenize(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('The body holds 300 expressions; at most 20 are detokenized per request');
  });

  it('is one setting for both', async () => {
    const small = await startTestEngine({ inMemory: true, echoPort: 0, maxExpressions: 2 });
    try {
      const id = (await small.call('POST', '/tokens', { key: small.privateKey, body: { type: 'token', data: 'v' } })).body.id;
      const three = { a: `{{ ${id} }}`, b: `{{ ${id} }}`, c: `{{ ${id} }}` };
      const detail = 'The body holds 3 expressions; at most 2 are detokenized per request';
      const app = await small.call('POST', '/applications', {
        key: small.managementKey,
        body: { name: 'reader', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:read', 'token:use'] }] },
      });
      const detokenized = await small.call('POST', '/detokenize', { key: app.body.key, body: three });
      expect(detokenized.body.detail).toBe(detail);
      const proxied = await small.call('POST', '/proxy', { key: app.body.key, body: three, headers: { 'BT-PROXY-URL': small.engine.echoUrl! } });
      expect(proxied.body.proxy_error.detail).toBe(detail);
      const { c: _c, ...two } = three;
      expect((await small.call('POST', '/detokenize', { key: app.body.key, body: two })).body).toEqual({ a: 'v', b: 'v' });
    } finally {
      await small.stop();
    }
  });
});
