import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * A reactor's code calling back into the engine (docs/api.md, Reactors; Code runtime): node-bt's `bt` and
 * `applicationOptions` hold a key of the reactor's application; node22's `applicationOptions.apiKey` holds exactly
 * `runtime.permissions`, for that call only.
 */
let t: TestEngine;
let tokenId: string;

const create = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'calls back', ...body } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.id as string;
};
const react = (id: string, args: unknown) => t.call('POST', `/reactors/${id}/react`, { key: t.privateKey, body: { args } });

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  tokenId = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'kept' } })).body.id;
});
afterAll(() => t.stop());

describe('code that calls the engine', () => {
  it('node-bt: bt and applicationOptions act as the reactor’s application, with its access', async () => {
    const app = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: { name: 'reactor app', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] }] },
    });
    const id = await create({
      application: { id: app.body.id },
      code: 'module.exports = async (req) => ({ raw: { data: (await req.bt.tokens.retrieve(req.args.id)).data, environment: req.applicationOptions.environment } });',
    });
    const res = await react(id, { id: tokenId });
    expect(res.status, res.text).toBe(200);
    expect(res.body.raw).toEqual({ data: 'kept', environment: t.url });
  });

  it('node-bt without an application: bt is null and applicationOptions absent', async () => {
    const id = await create({ code: "module.exports = async (req) => ({ raw: { bt: req.bt, options: 'applicationOptions' in req } });" });
    expect((await react(id, {})).body.raw).toEqual({ bt: null, options: false });
  });

  it('node22: applicationOptions.apiKey holds runtime.permissions during the call, and fails after it', async () => {
    const code = `module.exports = async (event) => {
      const { apiKey, environment } = event.applicationOptions;
      const read = await fetch(environment + '/tokens/' + event.req.args.id, { headers: { 'BT-API-KEY': apiKey } });
      return { res: { body: { status: read.status, apiKey } } };
    };`;
    const id = await create({ code, runtime: { image: 'node22', permissions: ['token:read'] } });
    const res = await react(id, { id: tokenId });
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe(200);
    expect((await t.call('GET', `/tokens/${tokenId}`, { key: res.body.apiKey })).status).toBe(401);

    // The engine keeps one application for the reactor's keys, named for it; deleting the reactor deletes it.
    const named = async () => (await t.call('GET', '/applications?size=100', { key: t.managementKey })).body.data.filter((a: { name: string }) => a.name.includes(id));
    expect((await named()).map((a: { name: string }) => a.name)).toEqual([`node22 runtime of reactor calls back (${id}) code`]);
    await t.call('DELETE', `/reactors/${id}`, { key: t.managementKey });
    expect(await named()).toEqual([]);
  });
});
