import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptLikeElements } from '../support/client-encryption';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * PFX-ENCRYPTED on both kinds of proxy (docs/api.md, Client encryption keys): the header's token requests decrypted
 * with their client encryption key and read by the body's `encrypted` expressions, as the vendor's proxy docs show.
 */
let t: TestEngine;
let key: { key_id: string; public_key_pem: string };
let echo: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  echo = t.engine.echoUrl!;
  key = (await t.call('POST', '/keys', { key: t.managementKey, body: {} })).body;
});
afterAll(() => t.stop());

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };
const header = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const ephemeral = (encrypted: string | undefined, body: unknown, trace = 'enc') =>
  t.call('POST', '/proxy', {
    key: t.privateKey,
    body,
    headers: { 'BT-PROXY-URL': echo, 'BT-TRACE-ID': trace, ...(encrypted === undefined ? {} : { 'BT-ENCRYPTED': encrypted }) },
  });
const sentBody = (res: ApiResponse) => JSON.parse(JSON.parse(res.text).body);
async function historyOf(trace: string) {
  await t.engine.history.flush();
  return (await t.engine.history.list(50)).find((e) => e.trace_id === trace)!;
}

describe('the ephemeral proxy with BT-ENCRYPTED', () => {
  it('detokenizes a single encrypted token request into the body', async () => {
    const encrypted = header({ type: 'card', encrypted: await encryptLikeElements(CARD, key.public_key_pem, key.key_id) });
    const res = await ephemeral(encrypted, { number: "{{ encrypted | json: '$.data.number' }}", month: "{{ encrypted | json: '$.data.expiration_month' }}" });
    expect(res.status).toBe(200);
    expect(sentBody(res)).toEqual({ number: '4242424242424242', month: '12' });
  });

  it('reads several by name', async () => {
    const encrypted = header({
      creditCard: { type: 'card', encrypted: await encryptLikeElements(CARD, key.public_key_pem, key.key_id) },
      ssn: { type: 'social_security_number', encrypted: await encryptLikeElements('123-45-6789', key.public_key_pem, key.key_id) },
    });
    const res = await ephemeral(encrypted, { card: "{{ encrypted | json: '$.creditCard.data.number' }}", ssn: "{{ encrypted | json: '$.ssn.data' }}" });
    expect(sentBody(res)).toEqual({ card: '4242424242424242', ssn: '123-45-6789' });
  });

  it('keeps the decrypted values out of History, as detokenized ones', async () => {
    const encrypted = header({ type: 'token', encrypted: await encryptLikeElements('secret-value-98765', key.public_key_pem, key.key_id) });
    expect((await ephemeral(encrypted, { v: '{{ encrypted | json: "$.data" }}' }, 'enc-history')).status).toBe(200);
    expect(JSON.stringify(await historyOf('enc-history'))).not.toContain('secret-value-98765');
  });

  it('keeps the header itself in History only as a hint, as POST /tokens keeps encrypted (the vault holds its key)', async () => {
    const encrypted = header({ type: 'card', encrypted: await encryptLikeElements(CARD, key.public_key_pem, key.key_id) });
    expect((await ephemeral(encrypted, { n: "{{ encrypted | json: '$.data.number' }}" }, 'enc-header')).status).toBe(200);
    const entry = await historyOf('enc-header');
    expect(JSON.stringify(entry)).not.toContain(encrypted.slice(0, 40));
    expect(entry.request_headers.find(([name]) => name.toLowerCase() === 'bt-encrypted')?.[1]).toBe(`...${encrypted.slice(-4)}`);
  });

  it('names in History the keys that decrypted the header, as POST /tokens does', async () => {
    const jwe = await encryptLikeElements(CARD, key.public_key_pem, key.key_id);
    expect((await ephemeral(header({ card: { type: 'card', encrypted: jwe } }), { n: "{{ encrypted | json: '$.card.data.number' }}" }, 'enc-keys')).status).toBe(200);
    expect((await historyOf('enc-keys')).details).toMatchObject({ client_encryption_keys: [key.key_id] });
  });

  it('names no key when the call sent no BT-ENCRYPTED', async () => {
    expect((await ephemeral(undefined, { n: 'plain' }, 'enc-none')).status).toBe(200);
    expect((await historyOf('enc-none')).details).not.toHaveProperty('client_encryption_keys');
  });

  it.each<[string, () => Promise<string | undefined>, RegExp]>([
    ['not base64 JSON', async () => '%%%', /BT-ENCRYPTED must be base64 of a JSON token request/],
    ['JSON of another shape', async () => header({ type: 'card', data: CARD }), /BT-ENCRYPTED must be base64 of a JSON token request/],
    ['a JWE for no key of this vault', async () => header({ type: 'card', encrypted: await encryptLikeElements(CARD, key.public_key_pem, '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d') }), /BT-ENCRYPTED\.encrypted.*does not exist or has expired/],
    ['one entry of a map that does not decrypt', async () => header({ a: { type: 'token', encrypted: 'x.y.z' } }), /BT-ENCRYPTED\.a\.encrypted/],
    ['no header, but an encrypted expression', async () => undefined, /encrypted reads the PFX-ENCRYPTED header/],
  ])('answers 400 proxy_error for %s, never calling the destination', async (_, value, detail) => {
    const res = await ephemeral(await value(), { n: "{{ encrypted | json: '$.data.number' }}" });
    expect(res.status).toBe(400);
    expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
    expect(JSON.stringify(res.body.proxy_error)).toMatch(detail);
  });
});

/** Calls a new proxy whose tokenize transform makes `token`, with the card encrypted in BT-ENCRYPTED; the body also names the made token. */
async function callTokenizing(token: Record<string, unknown>, body: Record<string, string>, trace = 'enc-tokenizing'): Promise<ApiResponse> {
  const proxy = (
    await t.call('POST', '/proxies', {
      key: t.managementKey,
      body: { name: 'encrypted cards', destination_url: echo, request_transforms: [{ type: 'tokenize', options: { identifier: 'card', token } }] },
    })
  ).body;
  const encrypted = header({ type: 'card', encrypted: await encryptLikeElements(CARD, key.public_key_pem, key.key_id) });
  return t.call('POST', '/proxy', {
    key: t.privateKey,
    body: { ...body, token: "{{ tokenize_transform: 'card' | json: '$.id' }}" },
    headers: { 'BT-PROXY-KEY': proxy.key, 'BT-ENCRYPTED': encrypted, 'BT-TRACE-ID': trace },
  });
}

describe('a pre-configured proxy with BT-ENCRYPTED', () => {
  it('detokenizes the encrypted request into the body, and hands it to tokenize transforms as encrypted', async () => {
    const res = await callTokenizing({ type: 'card', data: "{{ encrypted | json: '$.data' }}" }, { number: "{{ encrypted | json: '$.data.number' }}" });
    expect(res.status).toBe(200);
    const sent = sentBody(res);
    expect(sent.number).toBe('4242424242424242');
    const token = await t.call('GET', `/tokens/${sent.token}`, { key: t.privateKey });
    expect(token.body.card).toMatchObject({ last4: '4242' });
  });

  it('puts a single encrypted request\'s data into a tokenize transform\'s token, as the spec merges it', async () => {
    const res = await callTokenizing({ type: 'card', metadata: { source: 'web' } }, {});
    expect(res.status).toBe(200);
    const token = await t.call('GET', `/tokens/${sentBody(res).token}`, { key: t.privateKey });
    expect(token.body).toMatchObject({ metadata: { source: 'web' }, card: { last4: '4242' } });
  });

  it('names in History the key that decrypted the header', async () => {
    expect((await callTokenizing({ type: 'card', data: "{{ encrypted | json: '$.data' }}" }, {}, 'enc-preconfigured')).status).toBe(200);
    expect((await historyOf('enc-preconfigured')).details).toMatchObject({ client_encryption_keys: [key.key_id] });
  });
});
