import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { revealEverythingKey, startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The tenant's four settings (vendor-surfaces.md §6.1) change what the vault and the proxy do from the next request
 * on, each seen through the API.
 */
let t: TestEngine;
let reveal: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  reveal = await revealEverythingKey(t);
});
afterAll(() => t.stop());
beforeEach(() => settle({}));

async function settle(settings: Record<string, string>): Promise<void> {
  const put = await t.call('PUT', '/tenants/self', { key: t.managementKey, body: { name: 'Tokenbench', settings } });
  expect(put.status).toBe(200);
}

let cardNumber = 4000000000000002;
/** A card number no other test of this file creates (Luhn-valid). */
function freshCard(): string {
  for (;;) {
    const digits = String(cardNumber++);
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return digits;
  }
}

const createCard = (number: string, extra: Record<string, unknown> = {}, year = 2040) =>
  t.call('POST', '/tokens', { key: reveal, body: { type: 'card', data: { number, expiration_month: 12, expiration_year: year }, ...extra } });

describe('deduplicate_tokens', () => {
  it('is the default of deduplicate_token on create: a duplicate returns the existing token, unless the request says false', async () => {
    const number = freshCard();
    const first = await createCard(number);
    const second = await createCard(number);
    expect(second.body.id).not.toBe(first.body.id);

    await settle({ deduplicate_tokens: 'true' });
    const again = await createCard(number);
    expect(again.status).toBe(201);
    expect([first.body.id, second.body.id]).toContain(again.body.id);
    expect(again.body._extras).toEqual({ deduplicated: true });
    const unlike = await createCard(number, { deduplicate_token: false });
    expect([first.body.id, second.body.id]).not.toContain(unlike.body.id);

    const tokenized = await t.call('POST', '/tokenize', { key: reveal, body: { card: { type: 'card', data: { number, expiration_month: 12, expiration_year: 2040 } } } });
    expect(tokenized.body.card.id).toBe(again.body.id);
  });
});

describe('token_deduplication_behavior', () => {
  it('read_existing returns the duplicate as it is; update_existing merges the new data into it', async () => {
    const number = freshCard();
    const first = await createCard(number, {}, 2040);
    await settle({ deduplicate_tokens: 'true' });
    const read = await createCard(number, {}, 2041);
    expect(read.body.id).toBe(first.body.id);
    expect((await t.call('GET', `/tokens/${first.body.id}`, { key: reveal })).body.data.expiration_year).toBe(2040);

    await settle({ deduplicate_tokens: 'true', token_deduplication_behavior: 'update_existing' });
    const updated = await createCard(number, {}, 2042);
    expect(updated.status).toBe(201);
    expect(updated.body).toMatchObject({ id: first.body.id, _extras: { deduplicated: true } });
    const stored = (await t.call('GET', `/tokens/${first.body.id}`, { key: reveal })).body;
    expect(stored.data).toEqual({ number, expiration_month: 12, expiration_year: 2042 });
    expect(stored.modified_at).not.toBeNull();
  });
});

describe('fingerprint_tokens', () => {
  it('when "false", only a token with its own fingerprint_expression gets a fingerprint', async () => {
    await settle({ fingerprint_tokens: 'false' });
    const plain = await createCard(freshCard());
    expect(plain.body.fingerprint).toBeNull();
    expect(plain.body.fingerprint_expression).toBeNull();
    const explicit = await createCard(freshCard(), { fingerprint_expression: '{{ data.number }}' });
    expect(explicit.body.fingerprint).toMatch(/\w{10,}/);

    await settle({});
    expect((await createCard(freshCard())).body.fingerprint).toMatch(/\w{10,}/);
  });
});

describe('disable_ephemeral_proxy', () => {
  it('when "true", /proxy without a proxy key is a 403 proxy_error; a pre-configured proxy still answers', async () => {
    const echo = t.engine.echoUrl!;
    const ephemeral = () => t.call('POST', '/proxy', { key: t.privateKey, headers: { 'BT-PROXY-URL': echo }, body: { hello: 'world' } });
    expect((await ephemeral()).status).toBe(200);

    const proxy = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'kept', destination_url: echo } });
    await settle({ disable_ephemeral_proxy: 'true' });
    const refused = await ephemeral();
    expect(refused.status).toBe(403);
    expect(refused.body.proxy_error).toMatchObject({ status: 403 });
    expect(refused.body.proxy_error.detail).toMatch(/disable_ephemeral_proxy/);
    const kept = await t.call('POST', '/proxy', { key: t.privateKey, headers: { 'BT-PROXY-KEY': proxy.body.key }, body: { hello: 'world' } });
    expect(kept.status).toBe(200);

    await settle({});
    expect((await ephemeral()).status).toBe(200);
  });
});
