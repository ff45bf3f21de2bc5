import { randomInt } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Masking what a proxy call detokenized (History, its trace, the code's log lines, the kept answer) over a body of
 * nearly 1 MB of digits, many of them the card's number or a slice of it, never makes another client wait: a probe
 * request sent every 20 ms while the call runs is answered within a second.
 */
const PAN = '4000056655665556';
const PROBE_BOUND_MS = 1000;

let t: TestEngine;
let key: string;
let cardId: string;

beforeAll(async () => {
  t = await startTestEngine({ echoPort: 0, historyAnswers: true, historyAnswerBytes: 1024 * 1024 });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'caller', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:use'] }] },
  });
  key = app.body.key;
  cardId = (await t.call('POST', '/tokens', { key, body: { type: 'card', data: { number: PAN, expiration_month: 1, expiration_year: 2031 } } })).body.id;
});
afterAll(() => t.stop());

/**
 * Digits: the card's number over and over, its slices, random numbers, grouped by spaces and dashes, then one run of
 * 100,000 random digits.
 */
function digits(length: number): string {
  const parts: string[] = [];
  let size = 100_000;
  while (size < length) {
    const part = [PAN, PAN.slice(4, 12), `${PAN.slice(0, 4)} ${PAN.slice(4, 8)}-${PAN.slice(8)}`, String(randomInt(1e9, 1e10))][randomInt(4)];
    parts.push(part);
    size += part.length + 1;
  }
  parts.push(Array.from({ length: 100_000 }, () => randomInt(10)).join(''));
  return parts.join(' ').slice(0, length);
}

/** Runs `call` while probing the engine every 20 ms; answers the slowest probe's time. */
async function slowestProbeBeside(call: () => Promise<number>): Promise<{ status: number; slowest: number }> {
  let done = false;
  let slowest = 0;
  const probes = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await request(`${t.url}/tokens/${cardId}`, { headers: { 'BT-API-KEY': key }, signal: AbortSignal.timeout(10_000) });
      await res.body.text();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const status = await call().finally(() => (done = true));
  await probes;
  return { status, slowest };
}

it('masks a body of nearly 1 MB of digits for History without stalling another client', async () => {
  const logEverything = 'module.exports = async (req) => { console.log(req.args.body.digits); console.log(req.args.body.pan); return { body: req.args.body }; };';
  const proxy = await t.call('POST', '/proxies', {
    key: t.managementKey,
    body: { name: 'digits', destination_url: t.engine.echoUrl, request_transforms: [{ code: logEverything }] },
  });
  expect(proxy.status).toBe(201);
  const body = JSON.stringify({ pan: `{{ ${cardId} | json: '$.number' }}`, digits: digits(1024 * 1024 - 200) });
  for (const headers of [{ 'BT-PROXY-KEY': proxy.body.key as string }, { 'BT-PROXY-URL': t.engine.echoUrl! }] as Record<string, string>[]) {
    const { status, slowest } = await slowestProbeBeside(async () => (await t.call('POST', '/proxy', { key, raw: body, headers: { ...headers, 'content-type': 'application/json' } })).status);
    expect(status).toBe(200);
    expect(slowest).toBeLessThan(PROBE_BOUND_MS);
  }
  await t.engine.history.flush();
  const shown = JSON.stringify(await t.engine.history.list(10));
  expect(shown).not.toContain(PAN);
});
