import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BasisTheoryError, type BasisTheoryClient } from '@basis-theory/node-sdk';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * `expires_at` in the formats the vendor documents (https://developers.basistheory.com/docs/api/tokens#create-token):
 * its own Create Token example `8/26/2030 7:23:57 PM -07:00`, the ISO 8601 forms of its "Token Expiration" table,
 * and the short date `9/27/2030` its earlier revision of that page listed (midnight UTC; no offset means UTC).
 * Answers carry ISO 8601; a past instant or an unreadable string is a 400 that names the field.
 */
let t: TestEngine;
let backend: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  backend = nodeSdk(t, t.privateKey);
});
afterAll(() => t.stop());

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function rawExpiry(id: string): Promise<string> {
  const read = await t.call('GET', `/tokens/${id}`, { key: t.privateKey });
  expect(read.body.expires_at).toMatch(ISO_UTC);
  return read.body.expires_at;
}

async function failure(promise: Promise<unknown>): Promise<BasisTheoryError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(BasisTheoryError);
  return error as BasisTheoryError;
}

describe('expires_at as the vendor documents it, through the node SDK', () => {
  it.each([
    ['8/26/2030 7:23:57 PM -07:00', '2030-08-27T02:23:57.000Z'],
    ['8/26/2030 7:23:57 AM +05:30', '2030-08-26T01:53:57.000Z'],
    ['8/26/2030 7:23:57 PM', '2030-08-26T19:23:57.000Z'],
    ['9/27/2030', '2030-09-27T00:00:00.000Z'],
    ['2030-04-23T13:24:28Z', '2030-04-23T13:24:28.000Z'],
    ['2030-04-23T17:24:28-04:00', '2030-04-23T21:24:28.000Z'],
    ['2030-09-27', '2030-09-27T00:00:00.000Z'],
  ])('accepts %s on create and answers the instant in ISO 8601', async (given, instant) => {
    const created = await backend.tokens.create({ type: 'token', data: 'expiring', expiresAt: given });
    expect(created.expiresAt?.toISOString()).toBe(instant);
    expect(await rawExpiry(created.id!)).toBe(instant);
  });

  it('accepts the documented example on update', async () => {
    const created = await backend.tokens.create({ type: 'token', data: 'extended' });
    const updated = await backend.tokens.update(created.id!, { expiresAt: '8/26/2030 7:23:57 PM -07:00' });
    expect(updated.expiresAt?.toISOString()).toBe('2030-08-27T02:23:57.000Z');
  });

  it('refuses a past expiry in the documented format as it refuses a past ISO one', async () => {
    for (const past of ['8/26/2001 7:23:57 PM -07:00', '2001-08-26T19:23:57Z']) {
      const error = await failure(backend.tokens.create({ type: 'token', data: 'late', expiresAt: past }));
      expect(error.statusCode).toBe(400);
      expect((error.body as any).errors).toEqual({ expires_at: ['expires_at must be in the future'] });
    }
  });

  it.each(['next tuesday', '2/30/2030', '13/1/2030', '8/26/2030 13:23:57 PM', '8/26/2030 7:23 PM -25:00', '2030-02-30', '26.08.2030', '8/26/30'])(
    'refuses %s with a 400 that names expires_at and its formats',
    async (garbage) => {
      const error = await failure(backend.tokens.create({ type: 'token', data: 'never', expiresAt: garbage }));
      expect(error.statusCode).toBe(400);
      const messages = (error.body as any).errors.expires_at as string[];
      expect(messages).toHaveLength(1);
      expect(messages[0]).toMatch(/^expires_at must be .*ISO 8601.*8\/26\/2030 7:23:57 PM -07:00/);
    },
  );
});
