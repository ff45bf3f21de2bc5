import { BasisTheoryError, type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * The vendor's official Node SDK, unchanged, pointed at Tokenbench by its documented `baseUrl` option: its own request
 * building and response parsing must accept what we send.
 */
let t: TestEngine;
let backend: BasisTheoryClient;
let management: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  const app = await management.applications.create({
    name: 'sdk backend',
    type: 'private',
    rules: [
      {
        description: 'everything',
        priority: 1,
        container: '/',
        transform: 'reveal',
        permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'],
      },
    ],
  });
  expect(app.keys?.[0]?.key ?? (app as any).key).toEqual(expect.any(String));
  backend = nodeSdk(t, (app as any).key ?? app.keys![0].key);
});
afterAll(() => t.stop());

describe('the official Node SDK against Tokenbench', () => {
  it('creates, reads, updates and deletes a card token', async () => {
    const card = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };
    const created = await backend.tokens.create({ type: 'card', data: card, metadata: { customer: 'sdk' } });
    expect(created.id).toEqual(expect.any(String));
    expect(created.type).toBe('card');
    expect(created.card?.last4).toBe('4242');
    const read = await backend.tokens.get(created.id!);
    expect(read.data).toEqual(card);
    expect(read.metadata).toEqual({ customer: 'sdk' });
    const updated = await backend.tokens.update(created.id!, { metadata: { customer: 'sdk-2' } });
    expect(updated.metadata).toEqual({ customer: 'sdk-2' });
    await backend.tokens.delete(created.id!);
    await expect(backend.tokens.get(created.id!)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('lists and searches with v2 pagination', async () => {
    for (let i = 0; i < 3; i++) {
      await backend.tokens.create({ type: 'token', data: `sdk-${i}`, metadata: { sdk_list: 'yes' }, searchIndexes: ['{{ data }}'] });
    }
    const seen: string[] = [];
    const page = await backend.tokens.listV2({ size: 2 });
    for await (const token of page) seen.push(token.id!);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    const found = await backend.tokens.searchV2({ query: 'data:sdk-1' });
    expect(found.data.map((d) => d.data)).toEqual(['sdk-1']);
  });

  it('tokenizes and detokenizes', async () => {
    const result = (await backend.tokens.tokenize({ first_name: 'Jane', last_name: 'Doe' })) as Record<string, string>;
    expect(Object.keys(result)).toEqual(['first_name', 'last_name']);
    const back = await backend.tokens.detokenize({ name: `{{ ${result.first_name} }} {{ ${result.last_name} }}` });
    expect(back).toEqual({ name: 'Jane Doe' });
  });

  it('manages applications and keys', async () => {
    const app = await management.applications.create({ name: 'sdk temp', type: 'private', permissions: ['token:read'] });
    const key = await management.applicationKeys.create(app.id!);
    expect(key.key).toEqual(expect.any(String));
    const keys = await management.applicationKeys.list(app.id!);
    expect(keys.map((k) => k.id)).toContain(key.id);
    const self = await nodeSdk(t, key.key!).applications.getByKey();
    expect(self.id).toBe(app.id);
    await management.applications.delete(app.id!);
  });

  it('surfaces validation errors as the SDK error type with the problem body', async () => {
    const failure = await backend.tokens
      .create({ type: 'card', data: { number: '4242424242424241', expiration_month: 1, expiration_year: 2030 } })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BasisTheoryError);
    expect((failure as BasisTheoryError).statusCode).toBe(400);
    expect(JSON.stringify((failure as BasisTheoryError).body)).toContain('data.number');
  });
});
