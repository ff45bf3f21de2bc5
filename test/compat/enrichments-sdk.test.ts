import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * GET /enrichments/card-details (docs/api.md, Card details) driven by the vendor's node SDK: the brand a BIN's
 * prefix names, derived offline; funding, segment and issuer are not known here and are left out.
 */
let t: TestEngine;
let backend: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
  backend = nodeSdk(t, t.privateKey);
});
afterAll(() => t.stop());

describe('the node SDK (5.7.0) on /enrichments/card-details', () => {
  it.each([
    ['424242', 'visa'],
    ['555555', 'mastercard'],
    ['222100', 'mastercard'],
    ['378282', 'american-express'],
    ['601111', 'discover'],
    ['36227206', 'diners-club'],
    ['353011', 'jcb'],
    ['620000', 'unionpay'],
    ['220000', 'mir'],
    ['509000', 'elo'],
    ['606282', 'hipercard'],
  ])('names the brand of BIN %s: %s', async (bin, brand) => {
    expect(await backend.enrichments.getcarddetails({ bin })).toEqual({ brand });
  });

  it('answers a BIN no brand claims with no details', async () => {
    expect(await backend.enrichments.getcarddetails({ bin: '999999' })).toEqual({});
  });

  it('answers any valid key, a public one too, and 401 without one', async () => {
    const pub = await nodeSdk(t, t.managementKey).applications.create({ name: 'browser', type: 'public', permissions: ['token:create'] });
    expect(await nodeSdk(t, pub.key!).enrichments.getcarddetails({ bin: '424242' })).toEqual({ brand: 'visa' });
    expect((await t.call('GET', '/enrichments/card-details?bin=424242')).status).toBe(401);
  });
});

describe('bad BINs', () => {
  it.each([['bin=42424'], ['bin=4242abcd'], ['bin=424242424'], ['bin='], ['']])('answers %j with a 400 problem naming bin', async (query) => {
    const answer = await t.call('GET', `/enrichments/card-details?${query}`, { key: t.privateKey });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.body).toMatchObject({ status: 400, errors: { bin: expect.any(Array) } });
  });

  it('keeps no more of a card number sent as the BIN than its first 8 digits in History', async () => {
    const answer = await t.call('GET', '/enrichments/card-details?bin=4242424242424242', { key: t.privateKey });
    expect(answer.status).toBe(400);
    await t.engine.history.flush();
    const entries = await t.engine.history.list(5);
    const entry = entries.find((e) => e.path.startsWith('/enrichments/card-details?bin=42424242'));
    expect(entry).toBeDefined();
    expect(JSON.stringify(entries)).not.toContain('4242424242424242');
  });
});
