import { setTimeout as sleep } from 'node:timers/promises';
import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * Sessions (docs/api.md, Sessions) driven by the vendor's node SDK, unchanged, in the vendor's flow: a public
 * application (a front end) creates a session, a private one (its back end) authorizes it by the nonce, and the
 * session's own key then reads what it was granted, until the session expires.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let backend: BasisTheoryClient;
let frontEnd: BasisTheoryClient;
let cardId: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  backend = nodeSdk(t, t.privateKey);
  const publicApp = await management.applications.create({ name: 'web front end', type: 'public', permissions: ['token:create'] });
  frontEnd = nodeSdk(t, publicApp.key!);
  cardId = (await backend.tokens.create({ type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 } })).id!;
});
afterAll(() => t.stop());

describe('the node SDK (5.7.0) on /sessions', () => {
  it('creates a session that can do nothing until a private application authorizes it', async () => {
    const session = await frontEnd.sessions.create();
    expect(session.sessionKey).toMatch(/^key_/);
    expect(session.nonce).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    // Three minutes by default, as the vendor's.
    expect(session.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 170_000);
    expect(session.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 180_000);
    await expect(nodeSdk(t, session.sessionKey!).tokens.get(cardId)).rejects.toMatchObject({ statusCode: 403 });

    await backend.sessions.authorize({ nonce: session.nonce!, permissions: ['token:read'] });
    const read = await nodeSdk(t, session.sessionKey!).tokens.get(cardId);
    expect(read.data).toMatchObject({ number: 'XXXXXXXXXXXX4242' });
  });

  it('grants access rules: here the card in plaintext, and nothing else', async () => {
    const session = await frontEnd.sessions.create();
    await backend.sessions.authorize({
      nonce: session.nonce!,
      rules: [{ description: 'reveal cards', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:read'] }],
    });
    const asSession = nodeSdk(t, session.sessionKey!);
    expect((await asSession.tokens.get(cardId)).data).toMatchObject({ number: '4242424242424242' });
    const other = await backend.tokens.create({ type: 'token', data: 'not a card' });
    await expect(asSession.tokens.get(other.id!)).rejects.toMatchObject({ statusCode: 403 });
  });

  it('grants one token by a rule condition, as the vendor\'s sessions guide does, and lists nothing else', async () => {
    const session = await frontEnd.sessions.create();
    await backend.sessions.authorize({
      nonce: session.nonce!,
      rules: [{ description: 'only our card', priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: cardId }], permissions: ['token:read'], transform: 'reveal' }],
    });
    const asSession = nodeSdk(t, session.sessionKey!);
    expect((await asSession.tokens.get(cardId)).data).toMatchObject({ number: '4242424242424242' });
    const other = await backend.tokens.create({ type: 'card', data: { number: '5555555555554444', expiration_month: 1, expiration_year: 2031 } });
    await expect(asSession.tokens.get(other.id!)).rejects.toMatchObject({ statusCode: 403 });
    expect((await asSession.tokens.listV2()).data).toEqual([]);
  });

  it('authorizes a nonce once (409 again) and knows no other (404)', async () => {
    const session = await frontEnd.sessions.create();
    await backend.sessions.authorize({ nonce: session.nonce!, permissions: ['token:read'] });
    await expect(backend.sessions.authorize({ nonce: session.nonce!, permissions: ['token:read'] })).rejects.toMatchObject({ statusCode: 409 });
    await expect(backend.sessions.authorize({ nonce: 'not-a-nonce-of-this-vault', permissions: ['token:read'] })).rejects.toMatchObject({ statusCode: 404 });
  });

  it('ends the session at the expires_at its authorization set: its key is then unknown', async () => {
    const session = await frontEnd.sessions.create();
    const expiresAt = new Date(Date.now() + 1200).toISOString();
    await backend.sessions.authorize({ nonce: session.nonce!, permissions: ['token:read'], expiresAt });
    const asSession = nodeSdk(t, session.sessionKey!);
    expect((await asSession.tokens.get(cardId)).id).toBe(cardId);
    await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 50);
    await expect(asSession.tokens.get(cardId)).rejects.toMatchObject({ statusCode: 401 });
  });
});
