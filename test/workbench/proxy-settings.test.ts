import { describe, expect, it } from 'vitest';
import { proxyViewSchema } from '../../shared/workbench/proxy-contract';
import { engineForEachTest, PAN, workbenchReply } from './support/workbench-engine';

/** The Proxies page's methods: /proxies without a management key, checked as the API checks, over the method table. */
const current = engineForEachTest();

const CODE = `module.exports = async function (req) {
  const { body, headers } = req.args;
  console.log('adding a note for', body.name);
  return { body: { ...body, note: 'from code' }, headers };
};`;

const definition = (destination: string, overrides: Record<string, unknown> = {}) => ({
  name: 'charges',
  destination_url: destination,
  request_transforms: [{ type: 'code', code: CODE }],
  response_transforms: [],
  application_id: null,
  configuration: { region: 'eu' },
  require_auth: true,
  ...overrides,
});

/** A refused call's status and problem body, from the workbench's HTTP side as the browser gets it. */
async function refusal(name: string, request: unknown) {
  const response = await current.bench.workbench(name, request);
  return { status: response.status, body: response.body as { detail?: string; errors?: Record<string, string[]> } };
}

describe('the Proxies page methods', () => {
  it('creates, lists, reads, replaces and deletes a proxy the API sees, naming its key by its last four only', async () => {
    const { bench } = current;
    const echo = bench.engine.echoUrl!;
    const made = proxyViewSchema.parse(await workbenchReply(bench, 'createProxy', definition(echo)));
    const api = await bench.call('GET', `/proxies/${made.id}`, { key: bench.managementKey });
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ name: 'charges', destination_url: echo, configuration: { region: 'eu' }, state: 'active' });
    expect(made.key_last4).toBe(api.body.key.slice(-4));
    const listed = await workbenchReply(bench, 'listProxies');
    expect(listed.map((p: { id: string }) => p.id)).toEqual([made.id]);
    expect(JSON.stringify(listed)).not.toContain(api.body.key);
    expect((await workbenchReply(bench, 'getProxy', { id: made.id })).name).toBe('charges');

    const changed = await workbenchReply(bench, 'updateProxy', { id: made.id, ...definition(echo, { name: 'refunds', request_transforms: [] }) });
    expect(changed).toMatchObject({ id: made.id, name: 'refunds', request_transforms: [], key_last4: made.key_last4 });
    expect((await bench.call('GET', `/proxies/${made.id}`, { key: bench.managementKey })).body.name).toBe('refunds');

    expect(await workbenchReply(bench, 'deleteProxy', { id: made.id })).toEqual({ deleted: true });
    expect((await bench.call('GET', `/proxies/${made.id}`, { key: bench.managementKey })).status).toBe(404);
    const called = await bench.call('POST', '/proxy', { key: bench.privateKey, headers: { 'BT-PROXY-KEY': api.body.key }, body: {} });
    expect(called.status).toBe(400);

    // Each change is in History, as the workbench's own, by the proxy's name.
    const history = await workbenchReply(bench, 'listHistory', { limit: 20 });
    const summaries = history.filter((e: { kind: string }) => e.kind === 'workbench').map((e: { details: { change: { summary: string } } }) => e.details.change.summary);
    expect(summaries).toEqual(expect.arrayContaining(['Created proxy “charges”', 'Changed proxy “refunds” (was “charges”)', 'Deleted proxy “refunds”']));
  });

  it('refuses bad input with 400 naming each field, 404 for an unknown proxy, and writes nothing', async () => {
    const { bench } = current;
    const echo = bench.engine.echoUrl!;
    const badUrl = await refusal('createProxy', definition('ftp://example.com'));
    expect(badUrl).toMatchObject({ status: 400, body: { errors: { destination_url: [expect.stringContaining('destination_url')] } } });
    const badCode = await refusal('createProxy', definition(echo, { request_transforms: [{ type: 'code', code: 'module.exports = async function (req) {' }] }));
    expect(badCode).toMatchObject({ status: 400, body: { errors: { 'request_transforms[0].code': [expect.stringContaining('code does not compile')] } } });
    const responseOnly = await refusal('createProxy', definition(echo, { request_transforms: [{ type: 'mask', matcher: 'chase_stratus_pan', replacement: 'X' }] }));
    expect(responseOnly).toMatchObject({ status: 400, body: { errors: { 'request_transforms[0].type': ['a mask transform runs on responses only'] } } });
    const shapeless = await refusal('createProxy', { name: 'x' });
    expect(shapeless.status).toBe(400);
    expect(shapeless.body.detail).toContain('destination_url');
    const unknown = await refusal('updateProxy', { id: '9f1c1f0e-8e0b-4d5e-9b39-1f0b6c9f3a11', ...definition(echo) });
    expect(unknown.status).toBe(404);
    expect((await refusal('deleteProxy', { id: 'nope' })).status).toBe(404);
    expect((await refusal('tryProxy', { request_id: 'r1', id: 'nope', application_id: current.backend, method: 'POST', path: '/', headers: [], body: null })).status).toBe(404);
    expect(await workbenchReply(bench, 'listProxies')).toEqual([]);
  });

  it('tries a proxy as an application: the answer carries the trace, code log lines included, with detokenized values masked', async () => {
    const { bench, backend } = current;
    const made = await workbenchReply(bench, 'createProxy', definition(bench.engine.echoUrl!));
    const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
    const body = JSON.stringify({ name: 'Ada', number: `{{ ${card.body.id} }}` });
    const tried = await workbenchReply(bench, 'tryProxy', {
      request_id: 'try-1',
      id: made.id,
      application_id: backend,
      method: 'POST',
      path: '/v1/charges',
      headers: [['Content-Type', 'application/json']],
      body,
    });
    expect(tried.outcome).toMatchObject({ kind: 'response', status: 200 });
    const echoed = JSON.parse(Buffer.from(tried.outcome.body_base64, 'base64').toString('utf8'));
    expect(echoed.path).toBe('/v1/charges');
    const trace = tried.entry.details.trace as { step: string; logs?: string[] }[];
    expect(trace.map((step) => step.step)).toEqual(['detokenize', 'code', 'destination']);
    expect(trace[1].logs).toEqual(['log: adding a note for Ada']);
    expect(tried.entry.workbench_page).toBe(null);
    const api = await bench.call('GET', `/proxies/${made.id}`, { key: bench.managementKey });
    // Neither the card number nor the proxy's key reaches the page.
    expect(JSON.stringify(tried)).not.toContain(PAN);
    expect(JSON.stringify(tried)).not.toContain(api.body.key);
  });
});
