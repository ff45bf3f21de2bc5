import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** A developer's front end on its own dev-server port: one page, whose script calls Tokenbench with fetch. */
async function frontEnd(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>shop checkout</title><p>checkout</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

let bench: TestEngine;
let allowed: { server: Server; origin: string };
let other: { server: Server; origin: string };
let publicKey: string;

test.beforeAll(async () => {
  allowed = await frontEnd();
  other = await frontEnd();
  bench = await startTestEngine({ inMemory: true, allowedOrigins: [allowed.origin] });
  const app = await bench.call('POST', '/applications', {
    key: bench.managementKey,
    body: { name: 'checkout page', type: 'public', permissions: ['token:create'] },
  });
  publicKey = app.body.key;
});

test.afterAll(async () => {
  await bench.stop();
  allowed.server.close();
  other.server.close();
});

/** What the page's own fetch sees: the answer, or the browser's refusal. */
function tokenizeFromPage([apiUrl, key]: readonly [string, string]) {
  return fetch(`${apiUrl}/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'BT-API-KEY': key, 'BT-TRACE-ID': 'checkout-1' },
    body: JSON.stringify({ type: 'card_number', data: '4242424242424242' }),
  }).then(
    async (res) => ({ status: res.status, trace: res.headers.get('bt-trace-id'), body: await res.json() }),
    (error: Error) => ({ refused: error.name }),
  );
}

test('a page of an allowed origin tokenizes with a public key, preflight and all', async ({ page }) => {
  await page.goto(allowed.origin);
  const answer = await page.evaluate(tokenizeFromPage, [bench.url, publicKey] as const);
  expect(answer).toMatchObject({ status: 201, trace: 'checkout-1', body: { type: 'card_number', data: 'XXXXXXXXXXXX4242' } });
  // The browser sent its preflight first: both reached the engine, and the history shows them.
  const entries = await bench.engine.history.list(10);
  expect(entries.map((e) => `${e.method} ${e.status}`)).toEqual(expect.arrayContaining(['OPTIONS 204', 'POST 201']));
});

test('a page of any other origin is refused by the browser, and nothing is created', async ({ page }) => {
  const before = bench.engine.status().tokenCount;
  await page.goto(other.origin);
  const answer = await page.evaluate(tokenizeFromPage, [bench.url, publicKey] as const);
  expect(answer).toEqual({ refused: 'TypeError' });
  expect(bench.engine.status().tokenCount).toBe(before);
});
