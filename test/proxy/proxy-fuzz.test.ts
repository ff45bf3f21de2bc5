import net from 'node:net';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Whatever a client throws at /proxy, the answer is either the destination's (with PFX-PROXY-DESTINATION-STATUS and the
 * echo's JSON) or a JSON `proxy_error` (or, for bytes Node's HTTP parser refuses, a problem document): never a 500,
 * never a dropped connection, never a crash. Runs and seed are logged so a failure can be replayed.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

let t: TestEngine;
let key: string;
const tokens: { id: string; data: string }[] = [];

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, proxyTimeoutMs: 2000, maxBodyBytes: 16 * 1024 });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'fuzz', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:use'] }] },
  });
  key = app.body.key;
  // Token values that stress escaping: quotes, backslashes, control characters, unicode beyond the BMP.
  const tricky = fc.sample(fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\r', '\t', '\u0000', 'é', '🎉', '\u2028', '{', '}', '%', '&', '=', '+', 'a', ' ') }), { numRuns: 12, seed: 7 });
  for (const data of ['plain', ...tricky.filter((s) => s.length > 0)]) {
    const res = await t.call('POST', '/tokens', { key, body: { type: 'token', data } });
    expect(res.status).toBe(201);
    tokens.push({ id: res.body.id, data });
  }
});
afterAll(() => t.stop());

const headerName = fc.oneof(
  fc.constantFrom('Connection', 'Keep-Alive', 'TE', 'Trailer', 'Upgrade', 'Proxy-Authorization', 'Host', 'Expect',
    'BT-PROXY-KEEP-ALIVE', 'BT-PROXY-CONNECTION', 'BT-TRACE-ID', 'X-Dup', 'Content-Type', 'Authorization'),
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/),
);
const headerValue = fc.oneof(fc.stringMatching(/^[\x20-\x7e]{0,40}$/), fc.constantFrom('close', 'keep-alive', 'X-Dup, TE', 'upgrade', '{{ x }}'));
const expression = fc.oneof(
  fc.integer({ min: 0, max: 1000 }).map((i) => `{{ ${tokens[i % tokens.length].id} }}`),
  fc.constantFrom('{{', '}}', '{{ }}', '{{ {{ x }} }}', '{{ missing-id }}', '{{ a | nope }}', '{%raw%}', '{{ token: }}', "{{ x | json: '$[' }}"),
);
const textBody = fc.array(fc.oneof(fc.string({ maxLength: 20 }), expression), { maxLength: 8 }).map((parts) => parts.join(''));
const jsonBody = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.oneof(expression, fc.string({ maxLength: 10 }), fc.integer()), { maxKeys: 6 })
  .map((o) => JSON.stringify(o));
const body = fc.oneof(
  jsonBody.map((b) => ({ bytes: Buffer.from(b), type: 'application/json' })),
  textBody.map((b) => ({ bytes: Buffer.from(b), type: fc.sample(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/json'), 1)[0] })),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ bytes: Buffer.from(b), type: 'application/octet-stream' })),
  fc.constant({ bytes: Buffer.from([0x7b, 0x7b, 0x20, 0xff, 0xfe, 0x7d, 0x7d]), type: 'text/plain' }),
  // Over the 16 KiB limit; built inside the property so a counterexample prints short.
  fc.constant({ bytes: 'over the limit' as const, type: 'text/plain' }),
);
const OVERSIZED = Buffer.alloc(20 * 1024, 'a');
/** Client-side refusals (undici will not send some header combinations): nothing reached the service. */
const CONNECTION_FAILURES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'ECONNREFUSED', 'UND_ERR_CLOSED', 'EPIPE']);

function assertContractAnswer(status: number, headers: Record<string, unknown>, text: string) {
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`answer ${status} is not JSON: ${text.slice(0, 200)}`);
  }
  if (headers['bt-proxy-destination-status'] !== undefined) {
    expect(Number(headers['bt-proxy-destination-status'])).toBe(status);
    expect(json).toHaveProperty('method');
  } else {
    // Only a destination may answer 500 here; a service fault for client input is a bug.
    expect(status).not.toBe(500);
    expect(json.proxy_error ?? json, text).toMatchObject({ status, type: 'about:blank' });
  }
}

it(`answers every random request with the destination's response or a JSON proxy_error (${RUNS} runs, seed ${SEED})`, async () => {
  console.log(`proxy fuzz: ${RUNS} runs, seed ${SEED} (FUZZ_SEED=${SEED} to replay)`);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }),
      body,
      fc.constantFrom('', '/status/404', '/status/500', '/a/{{ x }}?q={{ y }}'),
      async (method, headerPairs, { bytes: generated, type }, destinationPath) => {
        const bytes = generated === 'over the limit' ? OVERSIZED : generated;
        const raw: string[] = ['BT-API-KEY', key, 'BT-PROXY-URL', t.engine.echoUrl! + destinationPath, 'Content-Type', type];
        for (const [n, v] of headerPairs) raw.push(n, v);
        let res;
        try {
          res = await request(`${t.url}/proxy/fuzz`, { method, headers: raw, body: method === 'GET' ? undefined : bytes });
        } catch (error) {
          // A dropped connection is a failure of ours; anything else is undici refusing to send what was generated.
          if (CONNECTION_FAILURES.has((error as { code?: string }).code ?? '')) throw error;
          return;
        }
        const text = await res.body.text();
        assertContractAnswer(res.statusCode, res.headers, text);
        if (res.statusCode === 200 && type === 'application/json' && res.headers['bt-proxy-destination-status']) {
          // A JSON body that was valid JSON stays valid JSON after detokenization.
          let sentValid = true;
          try {
            JSON.parse(bytes.toString());
          } catch {
            sentValid = false;
          }
          const echoed = JSON.parse(text);
          if (sentValid && echoed.body) expect(() => JSON.parse(echoed.body)).not.toThrow();
        }
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
}, 300_000);

it('answers raw requests with CR/LF in headers, CL+TE smuggling and huge headers with a proxy_error', async () => {
  const send = (head: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(t.engine.port, '127.0.0.1', () => socket.write(head));
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 2000);
    });
  const base = `POST /proxy HTTP/1.1\r\nHost: 127.0.0.1\r\nBT-API-KEY: ${key}\r\nBT-PROXY-URL: ${t.engine.echoUrl}\r\n`;
  for (const head of [
    `${base}X-Bad: a\rb\r\nContent-Length: 0\r\n\r\n`,
    `${base}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    `${base}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    `${base}X-Huge: ${'a'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`,
  ]) {
    const answer = await send(head);
    expect(answer).toMatch(/^HTTP\/1\.1 4(00|31) /);
    // Like every other failure of the proxy itself (docs/api.md, Proxy).
    expect(answer).toContain('Content-Type: application/json');
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(json.proxy_error.status).toBeGreaterThanOrEqual(400);
  }
});
