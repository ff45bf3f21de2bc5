import { afterAll, beforeAll, expect, it } from 'vitest';
import { exchangeSchema, type Exchange } from '../../shared/workbench/composer-contract';
import { ADVICE, placeOf, proxyFailureKind, unreachedKind, type FailureFacts } from '../../renderer/src/pages/composer/failure-advice';
import { closedPort } from '../proxy/support/loopback';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The Composer's advice on a failed request, read from what a real engine answers and records for each failure: one
 * kind per failure, advice for that kind alone, and a token to show only where a token is at fault.
 */
let bench: TestEngine;
let app: string;
let token: string;

beforeAll(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, proxyTimeoutMs: 500 });
  app = bench.engine.bootstrapKeys!.private.application_id;
  token = (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: '4242424242424242' } })).body.id;
});
afterAll(() => bench.stop());

async function send(to: { application_id: string } | { target_id: string }, destination: string, body = `{"pan": "{{ ${token} }}"}`): Promise<Exchange> {
  const headers: [string, string][] = [['BT-PROXY-URL', destination], ['Content-Type', 'application/json']];
  return exchangeSchema.parse(await bench.engine.workbench.sendRequest({ id: crypto.randomUUID(), ...to, method: 'POST', path: '/proxy/charges', headers, body }));
}

/** What the Response makes of a proxy failure: its kind, what it says to do, whether it shows a token. */
function adviceOf(exchange: Exchange) {
  if (exchange.outcome.kind !== 'response') throw new Error('no answer');
  const detail = (JSON.parse(Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8')) as { proxy_error: { detail: string } }).proxy_error.detail;
  const proxy = exchange.entry!.proxy!;
  const kind = proxyFailureKind(exchange.outcome.status, detail, proxy.failure ?? null);
  const facts: FailureFacts = { ...placeOf(proxy.destination_url ?? ''), who: 'the destination', fix: 'the destination URL', application: 'Tokenbench backend', detail };
  return { kind, says: ADVICE[kind].say(facts), token: ADVICE[kind].token === true };
}

it('reads each failure of the proxy as its kind, with advice for it alone, and a token to show only where one is at fault', async () => {
  const port = await closedPort();
  const echo = new URL(bench.engine.echoUrl!);
  expect(adviceOf(await send({ application_id: app }, `http://127.0.0.1:${port}`))).toEqual({
    kind: 'refused',
    says: `Nothing accepted a connection at 127.0.0.1:${port}: start the destination there, or correct the destination URL.`,
    token: false,
  });
  expect(adviceOf(await send({ application_id: app }, 'http://no-such-host.invalid'))).toEqual({
    kind: 'dns',
    says: "The host name no-such-host.invalid was not found: correct the destination URL, or check this machine's DNS.",
    token: false,
  });
  // https to a server that speaks http.
  expect(adviceOf(await send({ application_id: app }, `https://127.0.0.1:${echo.port}`))).toMatchObject({ kind: 'tls', token: false });
  expect(adviceOf(await send({ application_id: app }, `${bench.engine.echoUrl}/delay/3000`))).toMatchObject({
    kind: 'timeout',
    says: expect.stringMatching(/^Destination did not answer within 500 ms: check the destination is up/),
    token: false,
  });
  expect(adviceOf(await send({ application_id: app }, bench.engine.echoUrl!, '{"pan": "{{ 00000000-0000-4000-8000-000000000000 }}"}'))).toMatchObject({
    kind: 'unknown_token',
    token: true,
  });
  expect(adviceOf(await send({ application_id: app }, bench.engine.echoUrl!, `{"pan": "{{ ${token} | nope }}"}`))).toMatchObject({ kind: 'expression', token: true });
});

it('reads a remote target not reached by why, and this engine not reached as the engine being down', async () => {
  const port = await closedPort();
  const remote = await bench.engine.workbench.addRemoteTarget({ name: 'staging', base_url: `http://127.0.0.1:${port}`, api_key: 'key_test_staging_0123456789abcdef' });
  const exchange = await send({ target_id: remote.id }, bench.engine.echoUrl!);
  expect(exchange.outcome).toMatchObject({ kind: 'unreachable', code: 'ECONNREFUSED' });
  const code = exchange.outcome.kind === 'unreachable' ? exchange.outcome.code : null;
  expect(unreachedKind(code, true)).toBe('refused');
  expect(unreachedKind(code, false)).toBe('engine_down');
});
