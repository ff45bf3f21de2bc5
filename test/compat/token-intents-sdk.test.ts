import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * Token intents (docs/api.md, Token intents) driven by the vendor's node SDK, unchanged: the front-end path of a
 * public key creating an intent and a back end reading, converting, detokenizing and deleting it.
 */
let t: TestEngine;
let browser: BasisTheoryClient;
let backend: BasisTheoryClient;

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2040, cvc: '123' };

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  const management = nodeSdk(t, t.managementKey);
  const publicApp = await management.applications.create({ name: 'checkout', type: 'public', permissions: ['token-intent:create'] });
  const privateApp = await management.applications.create({
    name: 'orders',
    type: 'private',
    permissions: ['token-intent:read', 'token-intent:delete'],
    rules: [{ description: 'cards', priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
  });
  browser = nodeSdk(t, publicApp.key!);
  backend = nodeSdk(t, privateApp.key!);
});
afterAll(() => t.stop());

describe('the node SDK (5.7.0) on /token-intents', () => {
  it('creates an intent with a public key, reads it, and deletes it', async () => {
    const created = await browser.tokenIntents.create({ type: 'card', data: CARD });
    expect(created).toMatchObject({ type: 'card', card: { bin: '42424242', last4: '4242', expirationMonth: 12, expirationYear: 2040, brand: 'visa' } });
    expect(created.expiresAt!.getTime() - created.createdAt!.getTime()).toBe(24 * 60 * 60 * 1000);
    expect(created.extras).toEqual({ networkTokenIds: [] });
    const read = await backend.tokenIntents.get(created.id!);
    expect(read).toMatchObject({ id: created.id, fingerprint: created.fingerprint, card: { last4: '4242' } });
    await backend.tokenIntents.delete(created.id!);
    await expect(backend.tokenIntents.get(created.id!)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('converts an intent through tokens.create and tokens.tokenize, without its CVC', async () => {
    const first = await browser.tokenIntents.create({ type: 'card', data: CARD });
    const token = await backend.tokens.create({ tokenIntentId: first.id, metadata: { order: '1' } });
    expect(token).toMatchObject({ type: 'card', fingerprint: first.fingerprint, metadata: { order: '1' } });
    expect(token.data).toEqual({ number: CARD.number, expiration_month: 12, expiration_year: 2040 });
    await expect(backend.tokenIntents.get(first.id!)).rejects.toMatchObject({ statusCode: 404 });
    await expect(backend.tokens.create({ tokenIntentId: first.id })).rejects.toMatchObject({ statusCode: 400 });

    const second = await browser.tokenIntents.create({ type: 'card', data: CARD });
    const tokenized = (await backend.tokens.tokenize({ card: { token_intent_id: second.id } })) as { card: { id: string; data: object } };
    expect(tokenized.card.data).not.toHaveProperty('cvc');
  });

  it('detokenizes an intent by token_intent:, CVC included', async () => {
    const created = await browser.tokenIntents.create({ type: 'card', data: CARD });
    const reader = nodeSdk(t, t.privateKey);
    const detokenized = await reader.tokens.detokenize({ cvc: `{{ token_intent: ${created.id} | json: '$.data.cvc' }}` });
    expect(detokenized).toEqual({ cvc: '123' });
  });

  it('surfaces the errors as the SDK types them: 400 with the field, 403, 422', async () => {
    const invalid = await browser.tokenIntents.create({ type: 'card', data: { number: '1' } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ statusCode: 400 });
    expect(Object.keys((invalid as { body: { errors: object } }).body.errors)).toContain('data.number');
    await expect(browser.tokenIntents.get('8b1f0a52-0000-4000-8000-000000000000')).rejects.toMatchObject({ statusCode: 403 });
    await expect(browser.tokenIntents.create({ type: 'network_token', data: CARD })).rejects.toMatchObject({ statusCode: 422 });
    await expect(backend.tokenIntents.create({ type: 'card', data: CARD })).rejects.toMatchObject({ statusCode: 403 });
  });
});
