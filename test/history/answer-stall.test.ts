import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callApi } from '../support/test-engine';
import { BIN_SERVE_COMMAND, startServe, type ServeProcess } from '../support/serve-process';

/**
 * Masking kept answers happens on the engine's main thread, once the client has its answer: with the largest bound
 * (1 MiB) and answers made to be the slowest to mask (one run of digits and separators, card numbers in JSON, and
 * every detokenized value to look for), another client's requests are answered within a second all the while. The
 * engine runs in a process of its own, so a probe in flight waits for whatever holds the engine up.
 */
const ANSWER_BYTES = 1_000_000;
const ANSWERS = 6;
/** The house's bound: no request under 1 MB makes another client wait over 1 s. */
const PROBE_BOUND_MS = 1_000;

const ANSWER_SHAPES: Record<string, string> = {
  '/digits': '1 '.repeat(ANSWER_BYTES / 2),
  '/dashes': '4-'.repeat(ANSWER_BYTES / 2),
  '/cards': Array.from({ length: ANSWER_BYTES / 50 }, (_, i) => `{"card":"4242 4242 4242 4242","n":${String(i).padStart(6, '0')}},`).join(''),
};
const PATHS = Object.keys(ANSWER_SHAPES);

let serve: ServeProcess;
let dataDir: string;
let destination: http.Server;
let destinationUrl: string;
let tokens: string[];
beforeAll(async () => {
  destination = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(ANSWER_SHAPES[req.url!]));
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'answer-stall-'));
  // The bin, from source, as `tokenbench serve` runs: the stall bound is held on that engine, not on the tests' build.
  serve = await startServe(['--data-dir', dataDir, '--port', '0', '--echo-port', '0', '--history-answers', '--history-answer-bytes', String(1024 * 1024)], { command: BIN_SERVE_COMMAND });
  tokens = [];
  for (let i = 0; i < 20; i++) {
    const created = await callApi(serve.url, 'POST', '/tokens', { key: serve.privateKey, body: { type: 'social_security_number', data: `078-05-${String(1100 + i)}` } });
    tokens.push(created.body.id as string);
  }
}, 60_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  destination.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it(`answers another client within ${PROBE_BOUND_MS} ms while ${ANSWERS} answers of ${ANSWER_BYTES} bytes are masked for history`, async () => {
  let sending = true;
  let slowest = 0;
  const probes: number[] = [];
  const probing = (async () => {
    while (sending) {
      const sent = performance.now();
      const reply = await request(`${serve.url}/tokens/${tokens[0]}`, { headers: { 'bt-api-key': serve.privateKey! }, signal: AbortSignal.timeout(10 * PROBE_BOUND_MS) });
      await reply.body.dump();
      slowest = Math.max(slowest, performance.now() - sent);
      probes.push(reply.statusCode);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const body = JSON.stringify(Object.fromEntries(tokens.map((id, i) => [`v${i}`, `{{ ${id} }}`])));
  try {
    for (let i = 0; i < ANSWERS; i++) {
      const reply = await callApi(serve.url, 'POST', `/proxy${PATHS[i % PATHS.length]}`, {
        key: serve.privateKey,
        raw: body,
        headers: { 'content-type': 'application/json', 'BT-PROXY-URL': destinationUrl },
      });
      expect(reply.status).toBe(200);
    }
    // Until history has written the last one: the masking is over by then.
    await expect.poll(() => keptAnswers().length, { timeout: 30_000 }).toBe(ANSWERS);
  } finally {
    sending = false;
    await probing;
  }
  console.log(`${probes.length} probes, the slowest ${Math.round(slowest)} ms`);
  expect(probes.length).toBeGreaterThan(1);
  expect(probes.every((status) => status === 200)).toBe(true);
  expect(slowest).toBeLessThan(PROBE_BOUND_MS);
  expect(keptAnswers().filter((answer) => answer.includes('XXXX XXXX XXXX 4242'))).toHaveLength(ANSWERS / PATHS.length);
}, 120_000);

/** The answers history has written, read from its file. */
function keptAnswers(): string[] {
  const db = new Database(join(dataDir, 'history.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT answer FROM request_log WHERE answer IS NOT NULL').all() as { answer: string }[]).map((row) => row.answer);
  } finally {
    db.close();
  }
}
