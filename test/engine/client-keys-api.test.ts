import { readFileSync, rmSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompactEncrypt, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptLikeElements } from '../support/client-encryption';
import { filesIn, startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** Client encryption keys and encrypted token requests over plain HTTP: each error row of docs/api.md and its limit. */
let t: TestEngine;
let key: { key_id: string; public_key_pem: string; expires_at: string };

beforeAll(async () => {
  t = await startTestEngine();
  key = (await t.call('POST', '/keys', { key: t.managementKey, body: {} })).body;
});
afterAll(() => t.stop());

const inDays = (days: number) => new Date(Date.now() + days * 24 * 3600 * 1000).toISOString();
const createToken = (body: unknown) => t.call('POST', '/tokens', { key: t.privateKey, body });

describe('/keys errors', () => {
  it('answers 401 without a key, on every route', async () => {
    for (const [method, path] of [['POST', '/keys'], ['GET', '/keys'], ['GET', `/keys/${key.key_id}`], ['DELETE', `/keys/${key.key_id}`]]) {
      expect((await t.call(method, path)).status).toBe(401);
    }
  });

  it('answers 403 to an application without keys:create, keys:read or keys:delete', async () => {
    expect((await t.call('POST', '/keys', { key: t.privateKey, body: {} })).status).toBe(403);
    const reader = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'key reader', type: 'management', permissions: ['keys:read'] } });
    expect((await t.call('GET', '/keys', { key: reader.body.key })).status).toBe(200);
    expect((await t.call('POST', '/keys', { key: reader.body.key, body: {} })).status).toBe(403);
    expect((await t.call('DELETE', `/keys/${key.key_id}`, { key: reader.body.key })).status).toBe(403);
  });

  it.each([['yesterday', inDays(-1)], ['past the vendor\'s year', inDays(366)], ['no date', 'soon'], ['a date without a time', '2030-01-01'], ['a number', 12]])(
    'answers 400 naming expires_at for %s',
    async (_, expiresAt) => {
      const res = await t.call('POST', '/keys', { key: t.managementKey, body: { expires_at: expiresAt } });
      expect(res.status).toBe(400);
      expect(res.body.errors.expires_at).toEqual(['expires_at must be an ISO 8601 date and time in the future, at most a year away']);
    },
  );

  it('answers 404 for a key that does not exist or was deleted', async () => {
    const unknown = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
    expect((await t.call('GET', `/keys/${unknown}`, { key: t.managementKey })).status).toBe(404);
    expect((await t.call('DELETE', `/keys/${unknown}`, { key: t.managementKey })).status).toBe(404);
    const doomed = (await t.call('POST', '/keys', { key: t.managementKey, body: {} })).body;
    expect((await t.call('DELETE', `/keys/${doomed.key_id}`, { key: t.managementKey })).status).toBe(204);
    expect((await t.call('DELETE', `/keys/${doomed.key_id}`, { key: t.managementKey })).status).toBe(404);
  });

  it('serves webhooks.v1.key without a key: the webhooks\' RSA public key as PEM, the same on every call', async () => {
    const res = await t.call('GET', '/keys/webhooks.v1.key');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-pem-file');
    const key = createPublicKey(res.text);
    expect(key.asymmetricKeyType).toBe('rsa');
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(res.text).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect((await t.call('GET', '/keys/webhooks.v1.key')).text).toBe(res.text);
  });

  it('forgets a key once it expires: gone from the list, and it decrypts nothing', async () => {
    const brief = (await t.call('POST', '/keys', { key: t.managementKey, body: { expires_at: new Date(Date.now() + 1200).toISOString() } })).body;
    const encrypted = await encryptLikeElements('secret', brief.public_key_pem, brief.key_id);
    expect((await t.call('GET', '/keys', { key: t.managementKey })).body.map((k: { key_id: string }) => k.key_id)).toContain(brief.key_id);
    await sleep(Math.max(0, Date.parse(brief.expires_at) - Date.now()) + 50);
    expect((await t.call('GET', '/keys', { key: t.managementKey })).body.map((k: { key_id: string }) => k.key_id)).not.toContain(brief.key_id);
    expect((await t.call('GET', `/keys/${brief.key_id}`, { key: t.managementKey })).status).toBe(404);
    const res = await createToken({ type: 'token', encrypted });
    expect(res.status).toBe(400);
    expect(res.body.errors.encrypted).toEqual([`was encrypted for client encryption key ${brief.key_id}, which does not exist or has expired`]);
  });

  it('keeps a key across a restart, its private half sealed in the vault', async () => {
    const dataDir = tempDir();
    const first = await startTestEngine({ dataDir });
    const made = (await first.call('POST', '/keys', { key: first.managementKey, body: {} })).body;
    await first.stop();
    const again = await startTestEngine({ dataDir });
    try {
      const apps = await again.call('POST', '/applications', { key: first.managementKey, body: { name: 'after restart', type: 'private', permissions: ['token:create'] } });
      const encrypted = await encryptLikeElements('kept', made.public_key_pem, made.key_id);
      expect((await again.call('POST', '/tokens', { key: apps.body.key, body: { type: 'token', encrypted } })).status).toBe(201);
      // An X25519 private key in PKCS #8 starts so: no file of the vault holds one in the clear.
      const pkcs8X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
      for (const file of filesIn(dataDir)) expect(readFileSync(file).includes(pkcs8X25519)).toBe(false);
    } finally {
      await again.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a wipe of the vault', () => {
  it('takes the client encryption keys with it', async () => {
    const own = await startTestEngine({ inMemory: true });
    try {
      await own.call('POST', '/keys', { key: own.managementKey, body: {} });
      await own.engine.workbench.wipeVault({ confirm: 'wipe' });
      const { keys } = await own.engine.workbench.takeWelcome({});
      expect((await own.call('GET', '/keys', { key: keys!.management.key })).body).toEqual([]);
    } finally {
      await own.stop();
    }
  });
});

describe('encrypted token requests: errors', () => {
  const refused = async (body: unknown, field = 'encrypted') => {
    const res = await createToken(body);
    expect(res.status).toBe(400);
    return res.body.errors[field] as string[];
  };

  it('answers 400 for something that is not a JWE', async () => {
    expect(await refused({ type: 'token', encrypted: 'eyJ9' })).toEqual(['is not a JWE in compact serialization (five base64url parts joined by dots)']);
    expect(await refused({ type: 'token', encrypted: 42 })).toEqual(['encrypted must be a JWE string']);
  });

  it('answers 400 for another scheme than ECDH-ES with A256GCM', async () => {
    const other = await encryptLikeElements('x', key.public_key_pem, key.key_id, { enc: 'A128GCM' });
    expect((await refused({ type: 'token', encrypted: other }))[0]).toMatch(/must be encrypted with alg ECDH-ES and enc A256GCM/);
  });

  it('answers 400 for a JWE that names no key, or an unknown one', async () => {
    const raw = key.public_key_pem.replace(/-----(BEGIN|END) PUBLIC KEY-----|\s/g, '');
    const publicKey = await importJWK({ kty: 'OKP', crv: 'X25519', x: Buffer.from(raw, 'base64').toString('base64url') }, 'ECDH-ES');
    const noKid = await new CompactEncrypt(new TextEncoder().encode('"x"')).setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM' }).encrypt(publicKey);
    expect((await refused({ type: 'token', encrypted: noKid }))[0]).toMatch(/names no key/);
    const unknown = await encryptLikeElements('x', key.public_key_pem, '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d');
    expect((await refused({ type: 'token', encrypted: unknown }))[0]).toMatch(/key 9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d, which does not exist or has expired/);
  });

  it('answers 400 for a JWE changed on the way, or encrypted for another key under this id', async () => {
    const jwe = await encryptLikeElements('x', key.public_key_pem, key.key_id);
    const parts = jwe.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect((await refused({ type: 'token', encrypted: parts.join('.') }))[0]).toMatch(/does not decrypt with client encryption key/);
    const other = (await t.call('POST', '/keys', { key: t.managementKey, body: {} })).body;
    const wrongKey = await encryptLikeElements('x', other.public_key_pem, key.key_id);
    expect((await refused({ type: 'token', encrypted: wrongKey }))[0]).toMatch(/does not decrypt with client encryption key/);
  });

  it('answers 400 for a payload that is not JSON', async () => {
    const raw = key.public_key_pem.replace(/-----(BEGIN|END) PUBLIC KEY-----|\s/g, '');
    const publicKey = await importJWK({ kty: 'OKP', crv: 'X25519', x: Buffer.from(raw, 'base64').toString('base64url') }, 'ECDH-ES');
    const notJson = await new CompactEncrypt(new TextEncoder().encode('4242424242424242x')).setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', kid: key.key_id }).encrypt(publicKey);
    expect((await refused({ type: 'token', encrypted: notJson }))[0]).toMatch(/decrypts to something that is not JSON/);
  });

  it('answers 400 for data and encrypted together, and for encrypted data in an update', async () => {
    const encrypted = await encryptLikeElements('x', key.public_key_pem, key.key_id);
    expect(await refused({ type: 'token', data: 'y', encrypted })).toEqual(['comes instead of data: send one of them']);
    const token = (await createToken({ type: 'token', data: 'y' })).body;
    const patch = await t.call('PATCH', `/tokens/${token.id}`, { key: t.privateKey, body: { encrypted }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(400);
    expect(patch.body.errors.encrypted).toEqual(['Only POST /tokens, POST /tokenize and POST /token-intents take encrypted data: send data here']);
  });

  it('validates the decrypted data as any data, and names the place of a bad one in /tokenize', async () => {
    const badCard = await encryptLikeElements({ number: '4242424242424241', expiration_month: 12, expiration_year: 2030 }, key.public_key_pem, key.key_id);
    expect(await refused({ type: 'card', encrypted: badCard }, 'data.number')).toEqual(['Card number fails the Luhn check']);
    const res = await t.call('POST', '/tokenize', { key: t.privateKey, body: { first: { type: 'token', data: 'ok' }, card: { type: 'card', encrypted: 'not a jwe' } } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['card.encrypted']);
  });

  it('refuses a /tokenize of more encrypted requests than it creates tokens before decrypting any', async () => {
    // Every JWE is broken: a refusal about one of them would mean the engine started decrypting 101 of them.
    const body = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`card${i}`, { type: 'token', encrypted: 'not.a.jwe.at.all' }]));
    const res = await t.call('POST', '/tokenize', { key: t.privateKey, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('A tokenize request creates at most 100 tokens');
  });

  it('records in History which key decrypted a request, never its data or the JWE', async () => {
    const encrypted = await encryptLikeElements({ number: '4242424242424242', expiration_month: 12, expiration_year: 2030 }, key.public_key_pem, key.key_id);
    const res = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card', encrypted }, headers: { 'BT-TRACE-ID': 'encrypted-1' } });
    expect(res.status).toBe(201);
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(20)).find((e) => e.trace_id === 'encrypted-1')!;
    expect(entry.details).toMatchObject({ client_encryption_keys: [key.key_id] });
    const kept = JSON.stringify(entry);
    expect(kept).not.toContain('4242424242424242');
    expect(kept).not.toContain(encrypted.slice(-20));
  });
});
