import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BasisTheoryClient } from '@basis-theory/node-sdk';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk, privateAppKey } from '../support/vendor-sdks';

/**
 * Default masks as the vendor's token-types page documents them, with its own example values
 * (https://developers.basistheory.com/docs/api/tokens/token-types): SSNs and EINs are masked by
 * `{{ data | reveal_last: 4 }}`, which masks digits and keeps the delimiters where the data has them.
 */
let t: TestEngine;
let masked: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  const management = nodeSdk(t, t.managementKey);
  masked = nodeSdk(t, await privateAppKey(management, 'pii masked', [{ container: '/pii/', transform: 'mask', permissions: ['token:create', 'token:read'] }]));
});
afterAll(() => t.stop());

describe('the documented default masks of identity numbers, through the node SDK', () => {
  it.each([
    ['social_security_number', '123456789', 'XXXXX6789'],
    ['social_security_number', '123-45-6789', 'XXX-XX-6789'],
    ['employer_id_number', '123456789', 'XXXXX6789'],
    ['employer_id_number', '12-3456789', 'XX-XXX6789'],
  ])('%s %s reads back as %s, with the mask the docs name', async (type, data, expected) => {
    const created = await masked.tokens.create({ type, data });
    expect(created.data).toBe(expected);
    expect(created.mask).toBe('{{ data | reveal_last: 4 }}');
    const read = await masked.tokens.get(created.id!);
    expect(read.data).toBe(expected);
    expect(read.mask).toBe('{{ data | reveal_last: 4 }}');
  });
});
