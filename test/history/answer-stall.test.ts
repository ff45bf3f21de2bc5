import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Masking kept answers happens on the engine's main thread, once the client has its answer: with the largest bound
 * (1 MiB) and answers made to be the slowest to mask (one run of digits and spaces, card numbers in JSON, and every
 * detokenized value to look for), another client's requests are answered within a second all the while.
 */
const ANSWER_BYTES = 1_000_000;
const ANSWERS = 6;
/** The house's bound: no request under 1 MB makes another client wait over 1 s. */
const PROBE_BOUND_MS = 1_000;

const ANSWER_SHAPES = {
  digits: '1 '.repeat(ANSWER_BYTES / 2),
  cards: Array.from({ length: ANSWER_BYTES / 50 }, (_, i) => `{"card":"4242 4242 4242 4242","n":${String(i).padStart(6, '0')}},`).join(''),
};

let t: TestEngine;
let destination: http.Server;
let destinationUrl: string;
let tokens: string[];
beforeAll(async () => {
  destination = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(ANSWER_SHAPES[req.url === '/cards' ? 'cards' : 'digits']));
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  t = await startTestEngine({ historyAnswers: true, historyAnswerBytes: 1024 * 1024 });
  tokens = [];
  for (let i = 0; i < 20; i++) {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'social_security_number', data: `078-05-${String(1100 + i)}` } });
    tokens.push(created.body.id as string);
  }
}, 60_000);
afterAll(async () => {
  await t.stop();
  destination.close();
});

it(`answers another client within ${PROBE_BOUND_MS} ms while ${ANSWERS} answers of ${ANSWER_BYTES} bytes are masked for history`, async () => {
  let sending = true;
  let slowest = 0;
  const probes: number[] = [];
  const probing = (async () => {
    while (sending) {
      const sent = performance.now();
      const reply = await request(`${t.url}/tokens/${tokens[0]}`, { headers: { 'bt-api-key': t.privateKey }, signal: AbortSignal.timeout(PROBE_BOUND_MS) });
      await reply.body.dump();
      slowest = Math.max(slowest, performance.now() - sent);
      probes.push(reply.statusCode);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const body = JSON.stringify(Object.fromEntries(tokens.map((id, i) => [`v${i}`, `{{ ${id} }}`])));
  try {
    for (let i = 0; i < ANSWERS; i++) {
      const reply = await t.call('POST', i % 2 ? '/proxy/cards' : '/proxy/digits', { key: t.privateKey, raw: body, headers: { 'content-type': 'application/json', 'BT-PROXY-URL': destinationUrl } });
      expect(reply.status).toBe(200);
    }
    await t.engine.history.flush();
  } finally {
    sending = false;
    await probing;
  }
  console.log(`${probes.length} probes, the slowest ${Math.round(slowest)} ms`);
  const proxied = (await t.engine.history.list(500)).filter((entry) => entry.kind === 'proxy');
  const kept = proxied.map((entry) => (entry.details as { response: { body: { text: string | null; masked: number } } }).response.body);
  expect(kept).toHaveLength(ANSWERS);
  expect(kept.every((answer) => answer.text !== null)).toBe(true);
  expect(kept.some((answer) => answer.masked > 0)).toBe(true);
  expect(probes.length).toBeGreaterThan(1);
  expect(probes.every((status) => status === 200)).toBe(true);
}, 120_000);
