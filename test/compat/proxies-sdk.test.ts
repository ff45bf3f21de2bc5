import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk } from '../support/vendor-sdks';

/**
 * Pre-configured proxies (docs/api.md, Pre-configured proxies) driven by both vendor SDKs, unchanged: every /proxies
 * route, the node SDK's auto-paging (which asks for page+1 until a page is empty), and invoking a proxy by its key in
 * the header and in the query string.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let echo: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  management = nodeSdk(t, t.managementKey);
  echo = t.engine.echoUrl!;
});
afterAll(() => t.stop());

describe('the node SDK (5.7.0) on /proxies', () => {
  it('creates, reads, replaces, patches and deletes a proxy', async () => {
    const created = await management.proxies.create({
      name: 'charges',
      destinationUrl: `${echo}/v1/`,
      requestTransform: { code: 'module.exports = async (req) => req.args;' },
      configuration: { merchant: 'm-1' },
      requireAuth: true,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.key).toMatch(/^[a-z0-9]{32}$/);
    expect(created).toMatchObject({ name: 'charges', state: 'active', requireAuth: true, configuration: { merchant: 'm-1' } });
    expect(created.requestTransforms).toEqual([{ type: 'code', code: 'module.exports = async (req) => req.args;' }]);
    expect(created.requestTransform).toEqual(created.requestTransforms![0]);
    expect(created.responseTransforms).toEqual([]);

    const read = await management.proxies.get(created.id!);
    expect(read).toMatchObject({ id: created.id, key: created.key, destinationUrl: `${echo}/v1/` });

    const replaced = await management.proxies.update(created.id!, { name: 'charges v2', destinationUrl: `${echo}/v2/` });
    expect(replaced).toMatchObject({ name: 'charges v2', key: created.key, requireAuth: true, requestTransforms: [], configuration: {} });
    expect(replaced.modifiedAt).toBeInstanceOf(Date);

    await management.proxies.patch(created.id!, { configuration: { merchant: 'm-2' } });
    expect(await management.proxies.get(created.id!)).toMatchObject({ name: 'charges v2', configuration: { merchant: 'm-2' }, key: created.key });

    await management.proxies.delete(created.id!);
    await expect(management.proxies.get(created.id!)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('pages through every proxy, stopping at the first empty page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await management.proxies.create({ name: `paged ${i}`, destinationUrl: echo })).id!);
    const seen: string[] = [];
    for await (const proxy of await management.proxies.list({ size: 2 })) seen.push(proxy.id!);
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect(new Set(seen).size).toBe(seen.length);
    const byName = await management.proxies.list({ name: 'PAGED 3' });
    expect(byName.data.map((p) => p.id)).toEqual([ids[3]]);
    for (const id of ids) await management.proxies.delete(id);
  });

  it('surfaces a validation error with the field path, and 403 for a key without the permission', async () => {
    const failure = await management.proxies
      .create({ name: 'bad', destinationUrl: echo, responseTransforms: [{ type: 'mask', matcher: 'regex', expression: 'no group', replacement: '*' }] })
      .catch((e: unknown) => e);
    expect(failure).toMatchObject({ statusCode: 400 });
    expect(Object.keys((failure as { body: { errors: object } }).body.errors)).toEqual(['response_transforms[0].expression']);
    await expect(nodeSdk(t, t.privateKey).proxies.list()).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('the legacy JS SDK (2.9.0) on /proxies and /proxy', () => {
  it('creates, retrieves, lists, updates, patches and deletes a proxy', async () => {
    const bt = await legacySdk(t, t.managementKey);
    const created = await bt.proxies.create({ name: 'legacy', destinationUrl: echo, requireAuth: false, configuration: { Some_Key: 'v' } });
    expect(created).toMatchObject({ name: 'legacy', destinationUrl: echo, requireAuth: false, configuration: { Some_Key: 'v' }, state: 'active' });
    expect((await bt.proxies.retrieve(created.id)).key).toBe(created.key);
    const page = await bt.proxies.list({ page: 1, size: 100 });
    expect(page.data.map((p: { id: string }) => p.id)).toContain(created.id);
    expect((await bt.proxies.list({ page: 99, size: 100 })).data).toEqual([]);
    const updated = await bt.proxies.update(created.id, { name: 'legacy 2', destinationUrl: echo, requireAuth: false });
    expect(updated).toMatchObject({ name: 'legacy 2', requireAuth: false });
    await bt.proxies.patch(created.id, { name: 'legacy 3' });
    expect((await bt.proxies.retrieve(created.id)).name).toBe('legacy 3');
    await bt.proxies.delete(created.id);
    await expect(bt.proxies.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('invokes a proxy by its key in the BT-PROXY-KEY header and in the bt-proxy-key query parameter', async () => {
    const proxy = await management.proxies.create({ name: 'invoked', destinationUrl: `${echo}/base` });
    const bt = await legacySdk(t, t.privateKey);
    const byHeader = await bt.proxy.post({ path: '/charges', query: { expand: 'x' }, headers: { 'BT-PROXY-KEY': proxy.key! }, body: { amount: 1 } });
    expect(byHeader).toMatchObject({ method: 'POST', path: '/base/charges', query: { expand: 'x' } });
    expect(JSON.parse(byHeader.body)).toEqual({ amount: 1 });
    expect(byHeader.headers['bt-proxy-key']).toBeUndefined();
    const byQuery = await bt.proxy.get({ path: '/items', query: { 'bt-proxy-key': proxy.key!, q: '1' } });
    expect(byQuery).toMatchObject({ method: 'GET', path: '/base/items', query: { q: '1' } });
    await management.proxies.delete(proxy.id!);
  });
});
