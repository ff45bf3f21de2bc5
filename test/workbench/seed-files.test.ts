import { afterEach, describe, expect, it } from 'vitest';
import { callMethod, problemOf, seedFile } from '../../electron/engine';
import { seedReportSchema } from '../../shared/workbench/contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { revealKey } from '../transactions/transaction-fixtures';

/** Settings' danger zone, seed files: the vault written out as `serve --seed` reads it, and a seed read back in. */
const PAN = '4242424242424242';
const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((t) => t.stop()));
});
const start = async () => {
  const t = await startTestEngine({ inMemory: true });
  engines.push(t);
  return t;
};

const importSeed = async (t: TestEngine, seed: unknown, apply: boolean) => {
  try {
    return { ok: true as const, report: seedReportSchema.parse(await callMethod(t.engine.workbench, 'importSeed', { seed, apply })) };
  } catch (error) {
    return { ok: false as const, problem: problemOf(error) };
  }
};

describe('exporting a seed file', () => {
  it('writes every application and its rules with a new key that works, and no token unless asked', async () => {
    const t = await start();
    await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: PAN } });
    const exported = await t.engine.workbench.exportSeed({ include_tokens: false });
    expect(exported).toMatchObject({ applications: 2, tokens: 0 });
    const seed = seedFile.parse(exported.seed);
    // The two first-start applications are made in the same millisecond: their order is the ids'.
    expect(seed.applications.map((app) => [app.name, app.type]).sort()).toEqual([
      ['Tokenbench backend', 'private'],
      ['Tokenbench management', 'management'],
    ]);
    expect(seed.tokens).toEqual([]);
    expect(JSON.stringify(exported)).not.toContain(PAN);
    for (const app of seed.applications) {
      expect((await t.call('GET', '/applications/key', { key: app.key })).body.name).toBe(app.name);
    }
  });

  it('with tokens, round-trips: a fresh vault seeded from it holds the same tokens, and this vault finds nothing to change', async () => {
    const source = await start();
    const reveal = await revealKey(source);
    const card = await source.call('POST', '/tokens', {
      key: reveal,
      body: { type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2040 }, metadata: { customer: 'c-1' }, containers: ['/pci/'] },
    });
    const plain = await source.call('POST', '/tokens', { key: reveal, body: { id: 'kept-id', type: 'token', data: { any: ['json'] }, mask: null } });
    expect([card.status, plain.status]).toEqual([201, 201]);
    const exported = await source.engine.workbench.exportSeed({ include_tokens: true });
    expect(exported).toMatchObject({ applications: 3, tokens: 2 });
    expect(JSON.stringify(exported.seed)).toContain(PAN);

    const target = await start();
    // The fresh vault has its own first-start applications by those names: they are conflicts, the rest is made.
    const planned = await importSeed(target, exported.seed, false);
    expect(planned.ok && planned.report).toEqual({
      created: ['application "reveal everything"', `token ${card.body.id}`, 'token kept-id'],
      unchanged: [],
      conflicts: expect.arrayContaining([
        'application "Tokenbench management": an application of that name exists with another key',
        'application "Tokenbench backend": an application of that name exists with another key',
      ]),
    });
    expect(target.engine.status().tokenCount).toBe(0);
    const applied = await importSeed(target, exported.seed, true);
    expect(applied.ok && applied.report.created).toHaveLength(3);
    const revealHere = (exported.seed as { applications: { name: string; key: string }[] }).applications.find((app) => app.name === 'reveal everything')!.key;
    const read = await target.call('GET', `/tokens/${card.body.id}`, { key: revealHere });
    expect(read.body).toMatchObject({ data: { number: PAN }, metadata: { customer: 'c-1' }, containers: ['/pci/'] });
    expect((await target.call('GET', '/tokens/kept-id', { key: revealHere })).body).toMatchObject({ data: { any: ['json'] }, mask: null });

    const again = await importSeed(source, exported.seed, false);
    expect(again.ok && again.report).toMatchObject({ created: [], conflicts: [] });
    expect(again.ok && again.report.unchanged).toHaveLength(5);
  });
});

describe('importing a seed file', () => {
  it('shows its conflicts before applying, writing nothing until asked', async () => {
    const t = await start();
    await t.call('POST', '/tokens', { key: t.privateKey, body: { id: 'taken', type: 'token', data: 'ours' } });
    const seed = {
      applications: [
        { name: 'Tokenbench backend', type: 'private', permissions: ['token:read'], key: 'a-different-key-of-24-chars-or-more' },
        { name: 'New one', type: 'private', permissions: ['token:read'], key: 'the-new-ones-key-of-24-chars-or-more' },
      ],
      tokens: [
        { id: 'taken', type: 'token', data: 'theirs' },
        { id: 'fresh', type: 'token', data: 'new' },
      ],
    };
    const planned = await importSeed(t, seed, false);
    expect(planned.ok && planned.report).toEqual({
      created: ['application "New one"', 'token fresh'],
      unchanged: [],
      conflicts: ['application "Tokenbench backend": an application of that name exists with another key', 'token taken: exists with other data'],
    });
    expect(t.engine.status()).toMatchObject({ applicationCount: 2, tokenCount: 1 });
    await importSeed(t, seed, true);
    expect(t.engine.status()).toMatchObject({ applicationCount: 3, tokenCount: 2 });
  });

  it('refuses an invalid file naming the field, and a seed that cannot apply whole changes nothing', async () => {
    const t = await start();
    const invalid = await importSeed(t, { applications: [{ name: 'x', type: 'private', key: 'short' }] }, false);
    expect(invalid).toMatchObject({ ok: false, problem: { status: 400, errors: { 'seed.applications.0.key': [expect.stringContaining('24 characters')] } } });
    const badToken = await importSeed(t, { tokens: [{ id: 'bad-card', type: 'card_number', data: '4242424242424241' }] }, false);
    expect(badToken).toMatchObject({ ok: false, problem: { status: 400, detail: expect.stringMatching(/^token bad-card: data/) } });

    // An id an open transaction reserves: the application listed before it is not created either.
    const tx = (await t.call('POST', '/transactions', { key: t.privateKey })).body.id;
    await t.call('POST', '/tokens', { key: t.privateKey, body: { id: 'reserved', type: 'token', data: 'x' }, headers: { 'BT-TRANSACTION-ID': tx } });
    const blocked = await importSeed(t, { applications: [{ name: 'Before', type: 'private', key: 'the-befores-key-of-24-chars-or-more' }], tokens: [{ id: 'reserved', type: 'token', data: 'y' }] }, true);
    expect(blocked).toMatchObject({ ok: false, problem: { status: 409 } });
    expect(t.engine.status().applicationCount).toBe(2);
  });
});
