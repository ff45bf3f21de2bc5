import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exchangeSchema, type Exchange } from '../../shared/workbench/composer-contract';
import { randomBytes } from 'node:crypto';
import { resolveReferences, type WireParts } from '../../electron/engine/environments/resolve-references';
import { SecretStore } from '../../electron/engine/secrets/secret-store';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase } from '../../electron/engine/storage/database';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { frontDoor } from '../../electron/engine/workbench';
import { closedPort } from '../proxy/support/loopback';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** The Composer's engine side: requests sent as an application through the service's own front door. */
const PAN = '4242424242424242';
let bench: TestEngine;
let privateApp: string;

beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0 });
  privateApp = bench.engine.bootstrapKeys!.private.application_id;
});
afterEach(() => bench.stop());

let sequence = 0;
async function send(request: { method?: string; path: string; headers?: [string, string][]; body?: string | null; application_id?: string; id?: string }) {
  const reply = await bench.engine.workbench.sendRequest({
    id: request.id ?? `req-${++sequence}`,
    application_id: request.application_id ?? privateApp,
    method: (request.method ?? 'GET') as 'GET',
    path: request.path,
    headers: request.headers ?? [],
    body: request.body ?? null,
  });
  return exchangeSchema.parse(reply);
}

const bodyOf = (exchange: Exchange) => (exchange.outcome.kind === 'response' ? Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8') : null);
const header = (exchange: Exchange, name: string) =>
  exchange.outcome.kind === 'response' ? exchange.outcome.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1] : undefined;
const json = { 'content-type': 'application/json' };

describe('sending a composed request', () => {
  it('reaches the vault API as the chosen application, and answers with its history entry', async () => {
    const created = await send({ method: 'POST', path: '/tokens', headers: Object.entries(json), body: JSON.stringify({ type: 'card_number', data: PAN }) });
    expect(created.outcome).toMatchObject({ kind: 'response', status: 201, status_text: 'Created' });
    const token = JSON.parse(bodyOf(created)!);
    expect(token.data).toBe('XXXXXXXXXXXX4242');
    expect(created.entry).toMatchObject({ method: 'POST', path: '/tokens', status: 201, application_id: privateApp });
    expect(created.entry!.trace_id).toBe(header(created, 'BT-TRACE-ID'));
    // The request as it left: the key added by the engine, cut to its last four characters.
    expect(created.request.url).toBe(`${bench.url}/tokens`);
    expect(created.request.headers).toContainEqual(['BT-API-KEY', expect.stringMatching(/^\.\.\..{4}$/)]);
    expect(JSON.stringify(created)).not.toContain(PAN);
  });

  it('goes through the proxy: the destination answers, with its status header and the proxy details', async () => {
    const token = JSON.parse(bodyOf(await send({ method: 'POST', path: '/tokens', headers: Object.entries(json), body: JSON.stringify({ type: 'card_number', data: PAN }) }))!);
    const proxied = await send({
      method: 'POST',
      path: '/proxy/v1/charges?amount=10',
      headers: [['BT-PROXY-URL', bench.engine.echoUrl!], ['Content-Type', 'application/json']],
      body: JSON.stringify({ pan: `{{ ${token.id} }}` }),
    });
    expect(proxied.outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(header(proxied, 'BT-PROXY-DESTINATION-STATUS')).toBe('200');
    // The destination's answer: the echo shows what left the proxy, the card number in it as the token's mask.
    expect(JSON.parse(bodyOf(proxied)!)).toMatchObject({ method: 'POST', path: '/v1/charges', query: { amount: '10' }, body: '{"pan":"XXXXXXXXXXXX4242"}' });
    expect(proxied.outcome).toMatchObject({ masked: 1 });
    expect(proxied.entry?.proxy).toMatchObject({ status_source: 'destination', expressions: { count: 1, token_ids: [token.id] } });
  });

  it("shows the proxy's own failure with what history knows of it", async () => {
    const failed = await send({ method: 'POST', path: '/proxy', headers: [['BT-PROXY-URL', bench.engine.echoUrl!]], body: '{"pan":"{{ no-such-token }}"}' });
    expect(failed.outcome).toMatchObject({ kind: 'response', status: 400 });
    expect(header(failed, 'BT-PROXY-DESTINATION-STATUS')).toBeUndefined();
    expect(JSON.parse(bodyOf(failed)!)).toHaveProperty('proxy_error');
    expect(failed.entry?.proxy).toMatchObject({ status_source: 'proxy' });
  });

  it("sends a key the user wrote in the request instead of the application's", async () => {
    const refused = await send({ path: '/tokens', headers: [['BT-API-KEY', 'key_local_not-a-real-key-0000000000']] });
    expect(refused.outcome).toMatchObject({ kind: 'response', status: 401 });
    expect(refused.request.headers.filter(([name]) => name === 'BT-API-KEY')).toEqual([['BT-API-KEY', '...0000']]);
  });

  it('stops a request in flight when cancelled', async () => {
    const slow = send({ id: 'slow-one', path: '/proxy/delay/10000', headers: [['BT-PROXY-URL', bench.engine.echoUrl!]] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bench.engine.workbench.cancelRequest({ id: 'slow-one' })).toEqual({ cancelled: true });
    expect((await slow).outcome).toEqual({ kind: 'cancelled' });
    expect(bench.engine.workbench.cancelRequest({ id: 'slow-one' })).toEqual({ cancelled: false });
  });

  it('says what was tried and what came back when the service cannot be reached', async () => {
    const port = await closedPort();
    const secrets = new SecretStore(unitsOf(openDatabase({ dataDir: null })), new Sealer(randomBytes(32)));
    const none = { environment: null, variables: new Map(), problem: null };
    const resolve = (request: WireParts) => ({ resolved: resolveReferences(request, none, secrets, 'send'), environment: null });
    const door = frontDoor({ baseUrl: () => `http://127.0.0.1:${port}`, headerPrefix: 'BT', events: bench.engine.events, resolve });
    const exchange = await door.send({ id: 'x', application_id: privateApp, method: 'GET', path: '/tokens', headers: [], body: null }, { apiKey: 'key_local_x' });
    expect(exchange.request.url).toBe(`http://127.0.0.1:${port}/tokens`);
    expect(exchange.outcome).toMatchObject({ kind: 'unreachable', code: 'ECONNREFUSED' });
  });
});

describe('workbench keys', () => {
  const choiceOf = async (id: string) => (await bench.engine.workbench.listApplications({})).find((app) => app.id === id)!;

  it('are minted on first use, listed with the application, revocable, and minted anew on the next use', async () => {
    expect(await choiceOf(privateApp)).toMatchObject({ name: 'Tokenbench backend', type: 'private', workbench_key: null });
    expect((await send({ path: '/tokens' })).outcome).toMatchObject({ status: 200 });
    const first = (await choiceOf(privateApp)).workbench_key!;
    expect(first.id).toEqual(expect.any(String));

    // A real key of the application: the wire API lists it with the others.
    const keys = await bench.call('GET', `/applications/${privateApp}/keys`, { key: bench.managementKey });
    expect(keys.body.map((key: { id: string }) => key.id)).toContain(first.id);
    // The same key on later sends.
    await send({ path: '/tokens' });
    expect((await choiceOf(privateApp)).workbench_key!.id).toBe(first.id);

    expect(await bench.engine.workbench.revokeWorkbenchKey({ application_id: privateApp })).toMatchObject({ workbench_key: null });
    const after = await bench.call('GET', `/applications/${privateApp}/keys`, { key: bench.managementKey });
    expect(after.body.map((key: { id: string }) => key.id)).not.toContain(first.id);
    expect((await send({ path: '/tokens' })).outcome).toMatchObject({ status: 200 });
    expect((await choiceOf(privateApp)).workbench_key!.id).not.toBe(first.id);
  });

  it('never leave the engine: no reply of the workbench carries one', async () => {
    const exchange = await send({ path: '/tokens' });
    const listed = await bench.engine.workbench.listApplications({});
    expect(JSON.stringify([exchange, listed])).not.toMatch(/key_local_[A-Za-z0-9_-]{20,}/);
  });

  it('do not count as the key a regenerate replaces', async () => {
    const app = await bench.call('POST', '/applications', { key: bench.managementKey, body: { name: 'one key', type: 'private', permissions: ['token:read'] } });
    await send({ path: '/tokens', application_id: app.body.id });
    const regenerated = await bench.call('POST', `/applications/${app.body.id}/regenerate`, { key: bench.managementKey });
    expect(regenerated.status).toBe(200);
    expect((await choiceOf(app.body.id)).workbench_key).not.toBeNull();
  });
});
