import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../proxy/support/loopback';
import type { TestEngine } from '../support/test-engine';
import { applicationIdOf, engineKeeping, expectEnvelope, raised, traced } from './event-support';

/** A card number no fixture uses: it must appear in no event, whatever the family. */
const CANARY = '6011000990139424';

let t: TestEngine;
let destination: TestServer | undefined;
afterEach(async () => {
  await destination?.close();
  destination = undefined;
  await t?.stop();
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A destination that answers with what it received: the plaintext comes back in the answer too. */
async function echoDestination(): Promise<TestServer> {
  return startServer(async (req, res) => {
    const body = await readBody(req);
    res.writeHead(200, { 'content-type': 'application/json', 'x-seen': body });
    res.end(JSON.stringify({ received: body }));
  });
}

async function invokerKey(t: TestEngine): Promise<string> {
  const rules = [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:use', 'proxy:invoke', 'reactor:invoke'] }];
  const res = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'invoker', type: 'private', rules } });
  expect(res.status).toBe(201);
  return res.body.key as string;
}

describe('proxy events', () => {
  it('raises proxy.created, proxy.updated and proxy.deleted with the proxy but not its key or configuration', async () => {
    t = await engineKeeping(['proxy.created', 'proxy.updated', 'proxy.deleted']);
    const managerId = await applicationIdOf(t, t.managementKey);
    const created = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'p', destination_url: 'http://127.0.0.1:9/x', configuration: { secret: 'shh-config' } }, headers: traced('trace-p') });
    expect(created.status).toBe(201);
    const { id } = created.body;
    const patched = await t.call('PATCH', `/proxies/${id}`, { key: t.managementKey, body: { name: 'p2' }, headers: { 'content-type': 'application/merge-patch+json', ...traced('trace-patch') } });
    expect(patched.status).toBe(204);
    expect((await t.call('DELETE', `/proxies/${id}`, { key: t.managementKey, headers: traced('trace-pdel') })).status).toBe(204);

    const [create, update, remove] = await raised(t);
    expect(create.type).toBe('proxy.created');
    expectEnvelope(create, t, { actorId: managerId, traceId: 'trace-p' });
    expect(create.data.proxy).toEqual({ id, name: 'p', application_id: null, destination_url: 'http://127.0.0.1:9/x', require_authentication: true, created_at: created.body.created_at, created_by: managerId });
    expect(update).toMatchObject({ type: 'proxy.updated', trace_id: 'trace-patch', data: { proxy: { id, name: 'p2', modified_by: managerId, proxy_host: null, timeout: null } } });
    expect(remove).toMatchObject({ type: 'proxy.deleted', trace_id: 'trace-pdel', data: { proxy: { id } } });
    expect(JSON.stringify([create, update, remove])).not.toMatch(new RegExp(`${created.body.key}|shh-config`));
  });

  it('raises proxy.invoked for a pre-configured call, each detokenized value as *** and token.read for what it read', async () => {
    t = await engineKeeping(['proxy.invoked', 'token.read']);
    destination = await echoDestination();
    const key = await invokerKey(t);
    const card = (await t.call('POST', '/tokens', { key, body: { type: 'card', data: { number: CANARY, expiration_month: 1, expiration_year: 2040 } } })).body.id as string;
    const proxy = (await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'pay', destination_url: `${destination.url}/charges` } })).body;
    const res = await t.call('POST', '/proxy/now?x=1', { key, body: { number: `{{ ${card} | json: '$.number' }}` }, headers: { 'BT-PROXY-KEY': proxy.key, ...traced('trace-invoke') } });
    expect(res.status).toBe(200);
    expect(res.text).toContain(CANARY);

    const [invoked] = await raised(t, 'proxy.invoked');
    expectEnvelope(invoked, t, { actorId: await applicationIdOf(t, key), traceId: 'trace-invoke' });
    expect(invoked.data.proxy).toMatchObject({ id: proxy.id, name: 'pay', response: { status: 200, elapsed_ms: expect.any(Number) } });
    expect(invoked.data.destination).toMatchObject({
      request: { method: 'POST', url: `${destination.url}/charges/now?x=1`, query: { x: ['1'] }, body: '{"number":"***"}' },
      response: { status: 200, elapsed_ms: expect.any(Number) },
    });
    expect((await raised(t, 'token.read')).map((e) => [e.trace_id, e.data.token])).toEqual([['trace-invoke', { id: card, type: 'card' }]]);
    expect(JSON.stringify(await raised(t))).not.toContain(CANARY);
  });
});

describe('reactor events', () => {
  it('raises reactor.created, updated and deleted', async () => {
    t = await engineKeeping(['reactor.created', 'reactor.updated', 'reactor.deleted']);
    const created = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'r', code: 'module.exports = async () => ({ raw: {} })' }, headers: traced('trace-r') });
    expect(created.status).toBe(201);
    const { id } = created.body;
    expect((await t.call('PUT', `/reactors/${id}`, { key: t.managementKey, body: { name: 'r2', code: 'module.exports = async () => ({ raw: {} })' }, headers: traced('trace-rput') })).status).toBe(200);
    expect((await t.call('DELETE', `/reactors/${id}`, { key: t.managementKey, headers: traced('trace-rdel') })).status).toBe(204);
    const [create, update, remove] = await raised(t);
    expect(create).toMatchObject({ type: 'reactor.created', trace_id: 'trace-r', data: { reactor: { id, name: 'r', created_at: expect.any(String), created_by: expect.any(String) } } });
    expect(update).toMatchObject({ type: 'reactor.updated', trace_id: 'trace-rput', data: { reactor: { id, name: 'r2', modified_at: expect.any(String) } } });
    expect(remove).toEqual(expect.objectContaining({ type: 'reactor.deleted', trace_id: 'trace-rdel', data: expect.objectContaining({ reactor: { id } }) }));
  });

  it('raises reactor.invoked then reactor.completed or reactor.failed, sync and async, never with a detokenized value', async () => {
    t = await engineKeeping(['reactor.invoked', 'reactor.completed', 'reactor.failed']);
    const key = await invokerKey(t);
    const card = (await t.call('POST', '/tokens', { key, body: { type: 'card', data: { number: CANARY, expiration_month: 1, expiration_year: 2040 } } })).body.id as string;
    const make = async (code: string) => (await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'r', code } })).body.id as string;
    const ok = await make('module.exports = async (req) => ({ raw: { got: req.args.n } })');
    const failing = await make('module.exports = async (req) => { throw new Error("bad card " + req.args.n); }');
    const args = { n: `{{ ${card} | json: '$.number' }}` };
    expect((await t.call('POST', `/reactors/${ok}/react`, { key, body: { args }, headers: traced('trace-sync') })).status).toBe(200);
    expect((await t.call('POST', `/reactors/${failing}/react`, { key, body: { args }, headers: traced('trace-fail') })).status).toBeGreaterThanOrEqual(400);
    const async = await t.call('POST', `/reactors/${ok}/react-async`, { key, body: { args }, headers: traced('trace-async') });
    expect(async.status).toBe(202);
    for (let i = 0; i < 100 && (await t.call('GET', `/reactors/${ok}/results/${async.body.asyncReactorRequestId}`, { key })).body.status === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const events = await raised(t);
    expect(events.map((e) => [e.type, e.trace_id, (e.data.request as { invocation_type: string }).invocation_type])).toEqual([
      ['reactor.invoked', 'trace-sync', 'sync'],
      ['reactor.completed', 'trace-sync', 'sync'],
      ['reactor.invoked', 'trace-fail', 'sync'],
      ['reactor.failed', 'trace-fail', 'sync'],
      ['reactor.invoked', 'trace-async', 'async'],
      ['reactor.completed', 'trace-async', 'async'],
    ]);
    expect(events[1].data).toMatchObject({ reactor: { id: ok, name: 'r' }, elapsed_ms: expect.any(Number) });
    expect(events[3].data.error).toEqual(expect.stringContaining('bad card'));
    expect(events[4].data.request).toEqual({ id: async.body.asyncReactorRequestId, invocation_type: 'async' });
    expect(JSON.stringify(events)).not.toContain(CANARY);
  });
});

describe('session events', () => {
  it('raises session.created and session.authorized, never with the session key or nonce', async () => {
    t = await engineKeeping(['session.created', 'session.authorized']);
    const front = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'front', type: 'public', permissions: ['token:create'] } });
    const back = await invokerKey(t);
    const session = await t.call('POST', '/sessions', { key: front.body.key, headers: traced('trace-session') });
    expect(session.status).toBe(201);
    const authorized = await t.call('POST', '/sessions/authorize', { key: back, body: { nonce: session.body.nonce, permissions: ['token:read'] }, headers: traced('trace-authorize') });
    expect(authorized.status).toBe(204);
    const [created, authorize] = await raised(t);
    expectEnvelope(created, t, { actorId: front.body.id, traceId: 'trace-session' });
    expect(created).toMatchObject({ type: 'session.created', data: { session: { id: expect.any(String), application_id: front.body.id, expires_at: session.body.expires_at } } });
    expect(authorize).toMatchObject({ type: 'session.authorized', trace_id: 'trace-authorize', data: { session: { id: (created.data.session as { id: string }).id } } });
    expect(JSON.stringify([created, authorize])).not.toMatch(new RegExp(`${session.body.session_key}|${session.body.nonce}`));
  });
});
