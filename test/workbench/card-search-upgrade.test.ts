import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { luhnValid } from '../../shared/checksums';
import { tokenPageSchema } from '../../shared/workbench/token-contract';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { CARD_TERMS_MIGRATION, writePreviousVault, type OldToken } from '../support/previous-vault';
import { PAN } from './support/workbench-engine';

/** More than one batch of the indexing that follows the upgrade. */
const FILLERS = 1100;

/** A Luhn-valid Mastercard-range number ending in 0000, distinct for each `i`: its check digit sits before the end. */
function filler(i: number): string {
  for (let check = 0; check <= 9; check++) {
    const number = `510510${String(i).padStart(5, '0')}${check}0000`;
    if (luhnValid(number)) return number;
  }
  throw new Error('unreachable: one digit always satisfies Luhn');
}

let bench: TestEngine | undefined;
let dir: string | undefined;
/** The first start's private application, which the page acts as. */
let applicationId = '';
afterEach(async () => {
  await bench?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function search(query: string) {
  const reply = await bench!.workbench('searchTokens', { application_id: applicationId, query });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return tokenPageSchema.parse(reply.body);
}

describe('a vault from before card search', () => {
  it('has its cards and metadata indexed after the upgrade, in batches after the start, and only once', async () => {
    dir = tempDir();
    const tokens: OldToken[] = [
      { type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 }, metadata: { order: 'o-1' } },
      { type: 'card_number', data: '5555555555554444' },
      { type: 'token', data: { note: 'kept' }, metadata: { customer: 'Cus_ABC' } },
      ...Array.from({ length: FILLERS }, (_, i): OldToken => ({ type: 'card_number', data: filler(i) })),
    ];
    const [visa, mastercard, customer] = writePreviousVault(dir, tokens);

    bench = await startTestEngine({ dataDir: dir, workbenchRoutes: true });
    applicationId = bench.engine.bootstrapKeys!.private.application_id;
    // The engine answers while it indexes; the page is told how many tokens are not searchable yet.
    await expect.poll(async () => (await search('4242')).unindexed, { timeout: 20_000 }).toBe(0);
    expect((await search('4242')).tokens.map((token) => token.id)).toEqual([visa]);
    expect((await search('2031-12')).tokens.map((token) => token.id)).toEqual([visa]);
    expect((await search('O-1')).tokens.map((token) => token.id)).toEqual([visa]);
    expect((await search('cus_abc')).tokens.map((token) => token.id)).toEqual([customer]);
    expect((await search('5555555555554444')).tokens.map((token) => token.id)).toEqual([mastercard]);
    expect((await search('card.last4:0000')).total).toBe(FILLERS);
    expect((await search('mastercard')).total).toBe(FILLERS + 1);
    await bench.stop();

    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect(db.prepare('SELECT name FROM schema_migrations WHERE name = ?').pluck().get(CARD_TERMS_MIGRATION)).toBe(CARD_TERMS_MIGRATION);
    const terms = db.prepare('SELECT COUNT(*) FROM token_search_terms').pluck().get();
    db.close();

    // A second start finds nothing left to index, and indexes nothing twice.
    bench = await startTestEngine({ dataDir: dir, workbenchRoutes: true });
    expect((await search('4242')).unindexed).toBe(0);
    await bench.stop();
    const again = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect(again.prepare('SELECT COUNT(*) FROM token_search_terms').pluck().get()).toBe(terms);
    again.close();
  });
});
