import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_SEARCH_TERMS } from '../../electron/engine/vault/search-query';
import { startTestEngine, type TestEngine } from '../support/test-engine';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
});
afterAll(() => t.stop());

const terms = (n: number, write: (i: number) => string) => Array.from({ length: n }, (_, i) => write(i));

function expectLimitProblem(res: { status: number; headers: Record<string, unknown>; body: any }) {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.detail).toContain(`at most ${MAX_SEARCH_TERMS}`);
}

it.each(['/tokens/search', '/v2/tokens/search'])('%s answers a query of more terms than the limit with a 400 naming it', async (path) => {
  for (const join of [' AND ', ' OR ', ' OR NOT ']) {
    const over = terms(1000, (i) => `metadata.k${i}:v`).join(join);
    expectLimitProblem(await t.call('POST', path, { key: t.privateKey, body: { query: over } }));
  }
  const dates = terms(MAX_SEARCH_TERMS + 1, () => 'created_at:[* TO 2030-01-01]').join(' ');
  expectLimitProblem(await t.call('POST', path, { key: t.privateKey, body: { query: dates } }));

  const atLimit = terms(MAX_SEARCH_TERMS, (i) => `metadata.k${i}:v`).join(' OR ');
  expect((await t.call('POST', path, { key: t.privateKey, body: { query: `(${atLimit})` } })).status).toBe(200);
});

it.each(['/tokens', '/v2/tokens'])('GET %s answers more metadata filters than the limit with a 400 naming it', async (path) => {
  const over = terms(1000, (i) => `metadata.k${i}=v`).join('&');
  expectLimitProblem(await t.call('GET', `${path}?${over}`, { key: t.privateKey }));
  const atLimit = terms(MAX_SEARCH_TERMS, (i) => `metadata.k${i}=v`).join('&');
  expect((await t.call('GET', `${path}?${atLimit}`, { key: t.privateKey })).status).toBe(200);
});
