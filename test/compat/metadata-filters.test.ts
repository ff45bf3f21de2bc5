import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BasisTheoryClient } from '@basis-theory/node-sdk';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk, privateAppKey } from '../support/vendor-sdks';

/**
 * Metadata filters as each endpoint's own page documents them, with the search page's example metadata
 * `{ customer_id: "cus_12345" }` (https://developers.basistheory.com/docs/api/tokens/search). The v1 list and search
 * match metadata case-insensitively on key and value; v2 matches it exactly (the "Migrating to ... v2" sections of
 * https://developers.basistheory.com/docs/api/deprecations say so of both).
 */
let t: TestEngine;
let key: string;
let node: BasisTheoryClient;
let legacy: Awaited<ReturnType<typeof legacySdk>>;
let customerToken: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  key = await privateAppKey(nodeSdk(t, t.managementKey), 'metadata reader', [
    { container: '/', transform: 'mask', permissions: ['token:create', 'token:read', 'token:search'] },
  ]);
  node = nodeSdk(t, key);
  legacy = await legacySdk(t, key);
  customerToken = (await node.tokens.create({ type: 'token', data: 'a', metadata: { customer_id: 'cus_12345' } })).id!;
  await node.tokens.create({ type: 'token', data: 'b', metadata: { customer_id: 'cus_67890' } });
});
afterAll(() => t.stop());

describe('v1 metadata filters ignore case, through the legacy SDK', () => {
  it.each([
    [{ customer_id: 'cus_12345' }],
    [{ Customer_ID: 'CUS_12345' }],
    [{ CUSTOMER_ID: 'Cus_12345' }],
  ])('GET /tokens?metadata.… with %j lists the customer’s token only', async (metadata) => {
    const page = await legacy.tokens.list({ metadata });
    expect(page.data.map((token) => token.id)).toEqual([customerToken]);
  });

  it('ignores a repeated key, as the v1 list page says', async () => {
    const page = await t.call('GET', '/tokens?metadata.customer_id=cus_12345&metadata.customer_id=cus_67890', { key });
    expect(page.body.data.map((token: { id: string }) => token.id)).toEqual([customerToken]);
  });

  it('ignores the case of letters beyond ASCII too', async () => {
    const munich = (await node.tokens.create({ type: 'token', data: 'c', metadata: { Stadt: 'MÜNCHEN' } })).id!;
    expect((await legacy.tokens.list({ metadata: { STADT: 'München' } })).data.map((token) => token.id)).toEqual([munich]);
    expect((await legacy.tokens.search({ query: 'metadata.stadt:münchen' })).data.map((token) => token.id)).toEqual([munich]);
  });

  it.each(['metadata.customer_id:cus_12345', 'metadata.Customer_ID:CUS_12345'])('POST /tokens/search %s finds the customer’s token only', async (query) => {
    const page = await legacy.tokens.search({ query });
    expect(page.data.map((token) => token.id)).toEqual([customerToken]);
  });
});

describe('v2 metadata filters match exactly, through the node SDK', () => {
  it('POST /v2/tokens/search finds the exact metadata and nothing for another case', async () => {
    expect((await node.tokens.searchV2({ query: 'metadata.customer_id:cus_12345' })).data.map((token) => token.id)).toEqual([customerToken]);
    expect((await node.tokens.searchV2({ query: 'metadata.customer_id:CUS_12345' })).data).toEqual([]);
    expect((await node.tokens.searchV2({ query: 'metadata.Customer_ID:cus_12345' })).data).toEqual([]);
  });

  it('GET /v2/tokens?metadata.… finds the exact metadata and nothing for another case', async () => {
    const exact = await t.call('GET', '/v2/tokens?metadata.customer_id=cus_12345', { key });
    expect(exact.body.data.map((token: { id: string }) => token.id)).toEqual([customerToken]);
    const otherCase = await t.call('GET', '/v2/tokens?metadata.customer_id=CUS_12345', { key });
    expect(otherCase.body.data).toEqual([]);
  });
});

describe('the node SDK’s listV2 metadata filter, sent as JSON in one query parameter', () => {
  it('lists only the tokens whose metadata matches, as the dotted form does', async () => {
    const seen: string[] = [];
    for await (const token of await node.tokens.listV2({ metadata: { customer_id: 'cus_12345' } })) seen.push(token.id!);
    expect(seen).toEqual([customerToken]);
    const dotted = await t.call('GET', '/v2/tokens?metadata.customer_id=cus_12345', { key });
    expect(dotted.body.data.map((token: { id: string }) => token.id)).toEqual(seen);
  });

  it('applies the JSON form to the v1 list too, in any case', async () => {
    const metadata = encodeURIComponent(JSON.stringify({ CUSTOMER_ID: 'CUS_12345' }));
    const page = await t.call('GET', `/tokens?metadata=${metadata}`, { key });
    expect(page.body.data.map((token: { id: string }) => token.id)).toEqual([customerToken]);
  });

  it.each([
    ['not JSON', 'metadata=cus_12345'],
    ['a JSON array', `metadata=${encodeURIComponent('["cus_12345"]')}`],
    ['a number as a value', `metadata=${encodeURIComponent('{"customer_id":12345}')}`],
    ['the Go SDK’s map text', `metadata=${encodeURIComponent('map[customer_id:cus_12345]')}`],
  ])('answers 400 naming metadata for %s, never the whole vault', async (_, query) => {
    for (const path of ['/v2/tokens', '/tokens']) {
      const res = await t.call('GET', `${path}?${query}`, { key });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['metadata']);
    }
  });

  it('answers 400 for a v2 parameter given twice (each may appear once) and names it', async () => {
    for (const query of ['metadata.customer_id=cus_12345&metadata.customer_id=cus_67890', 'type=token&type=card']) {
      const res = await t.call('GET', `/v2/tokens?${query}`, { key });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual([query.split('=')[0]]);
    }
    const both = await t.call('GET', `/v2/tokens?metadata.customer_id=cus_12345&metadata=${encodeURIComponent('{"customer_id":"cus_67890"}')}`, { key });
    expect(both.status).toBe(400);
    expect(Object.keys(both.body.errors)).toEqual(['metadata.customer_id']);
  });
});
