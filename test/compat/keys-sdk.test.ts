import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, revealEverythingKey, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';
import { encryptLikeElements } from '../support/client-encryption';

/**
 * Client encryption keys (docs/api.md, Client encryption keys) driven by the vendor's node SDK, unchanged: every /keys
 * route, and a card encrypted in the browser's way (Elements: X25519, ECDH-ES, A256GCM, the key's id as `kid`) turned
 * into tokens by POST /tokens and POST /tokenize.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let backend: BasisTheoryClient;
let reader: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  backend = nodeSdk(t, t.privateKey);
  reader = nodeSdk(t, await revealEverythingKey(t));
});
afterAll(() => t.stop());

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };

describe('the node SDK (5.7.0) on /keys', () => {
  it('creates a key, returning its public half once; lists, reads and deletes it', async () => {
    const expiresAt = new Date(Date.now() + 30 * 24 * 3600 * 1000);
    expiresAt.setMilliseconds(0);
    const created = await management.keys.create({ expiresAt });
    expect(created.keyId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.expiresAt).toEqual(expiresAt);
    // The vendor's "PEM" carries the raw 32-byte X25519 key in base64, which its Elements read as the JWK's x.
    expect(created.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/]{43}=\n-----END PUBLIC KEY-----$/);

    const listed = await management.keys.list();
    expect(listed).toContainEqual({ keyId: created.keyId, expiresAt });
    expect(listed.every((key) => !('publicKeyPem' in key))).toBe(true);
    expect(await management.keys.get(created.keyId!)).toEqual({ keyId: created.keyId, expiresAt });

    await management.keys.delete(created.keyId!);
    await expect(management.keys.get(created.keyId!)).rejects.toMatchObject({ statusCode: 404 });
    expect((await management.keys.list()).map((key) => key.keyId)).not.toContain(created.keyId);
  });

  it('gives a key made without expires_at the longest life the vendor allows, a year', async () => {
    const before = Date.now();
    const created = await management.keys.create();
    const year = 365 * 24 * 3600 * 1000;
    expect(created.expiresAt!.getTime()).toBeGreaterThanOrEqual(before + year - 1000);
    expect(created.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + year);
  });
});

describe('encrypted token requests (the node SDK)', () => {
  it('creates a card token from a payload encrypted as Elements encrypts it', async () => {
    const key = await management.keys.create();
    const encrypted = await encryptLikeElements(CARD, key.publicKeyPem!, key.keyId!);
    const token = await backend.tokens.create({ type: 'card', encrypted });
    expect(token.data).toMatchObject({ number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 });
    expect((await reader.tokens.get(token.id!)).data).toEqual({ number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' });
  });

  it('tokenizes several encrypted requests in one POST /tokenize', async () => {
    const key = await management.keys.create();
    const card = await encryptLikeElements(CARD, key.publicKeyPem!, key.keyId!);
    const ssn = await encryptLikeElements('123-45-6789', key.publicKeyPem!, key.keyId!);
    const made = (await backend.tokens.tokenize({ card: { type: 'card', encrypted: card }, ssn: { type: 'social_security_number', encrypted: ssn }, note: 'plain' })) as Record<string, any>;
    expect((await reader.tokens.get(made.card.id)).data).toMatchObject({ number: '4242424242424242' });
    expect((await reader.tokens.get(made.ssn.id)).data).toBe('123-45-6789');
    expect((await reader.tokens.get(made.note)).data).toBe('plain');
  });
});
