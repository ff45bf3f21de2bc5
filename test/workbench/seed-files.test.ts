import { afterEach, describe, expect, it } from 'vitest';
import { callMethod, problemOf, seedFile } from '../../electron/engine';
import { SEED_TOKEN_IDS_LISTED } from '../../electron/engine/workbench/workbench-records';
import { historyListSchema } from '../../shared/workbench/history-contract';
import { seedReportSchema } from '../../shared/workbench/vault-contract';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';
import { revealKey } from '../transactions/transaction-fixtures';

/** Settings' danger zone, seed files: the vault written out as `serve --seed` reads it, and a seed read back in. */
const PAN = '4242424242424242';
const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((t) => t.stop()));
});
const start = async () => {
  const t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
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

/** The workbench's own entries in history, newest first, as the page lists them. */
const workbenchEntries = async (t: TestEngine) => {
  await t.engine.history.flush();
  return historyListSchema.parse(await callMethod(t.engine.workbench, 'listHistory', { limit: 500 })).filter((entry) => entry.kind === 'workbench');
};

describe('exporting a seed file', () => {
  it('writes every application and its rules with its export key, which works, and no token unless asked', async () => {
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

  it('carries one export key per application, made once and reused by every export, each made and each export recorded by last four', async () => {
    const t = await start();
    const backend = t.engine.bootstrapKeys!.private.application_id;
    const keyCount = async () => (await t.engine.workbench.listApplicationDetails({})).reduce((n, app) => n + app.keys.length, 0);
    const before = await keyCount();
    const first = await t.engine.workbench.exportSeed({ include_tokens: false }, 'settings');
    const exports = [first];
    for (let i = 0; i < 20; i++) exports.push(await t.engine.workbench.exportSeed({ include_tokens: false }, 'settings'));
    // 21 exports of 2 applications: 2 keys more, not 42.
    expect(await keyCount()).toBe(before + 2);
    const keysOf = (exported: typeof first) => seedFile.parse(exported.seed).applications.map((app) => app.key);
    for (const exported of exports) expect(keysOf(exported)).toEqual(keysOf(first));
    expect(first.keys.map((key) => key.made)).toEqual([true, true]);
    expect(exports[20].keys.map((key) => key.made)).toEqual([false, false]);

    const entries = await workbenchEntries(t);
    const made = entries.filter((entry) => entry.method === 'CREATE');
    expect(made.map((entry) => entry.change?.summary).sort()).toEqual(
      first.keys.map((key) => `Made the export key …${key.key_last4} of application “${key.application_id === backend ? 'Tokenbench backend' : 'Tokenbench management'}”`).sort(),
    );
    expect(made.every((entry) => entry.change?.action === 'exportSeed' && entry.workbench_page === 'settings')).toBe(true);
    const reveals = entries.filter((entry) => entry.method === 'REVEAL');
    expect(reveals).toHaveLength(21);
    const lastFours = first.keys.map((key) => key.key_last4);
    expect(reveals[0]).toMatchObject({
      path: '/seed',
      status: 200,
      reveal: {
        target: 'seed',
        keys: first.keys.map(({ application_id, key_id, key_last4 }) => ({ application_id, key_id, key_last4 })),
        token_count: 0,
        token_ids: [],
        summary: `Exported a seed file: 2 applications with their export keys (${lastFours.map((last4) => `…${last4}`).join(', ')}), no token data`,
      },
    });
    for (const key of keysOf(first)) expect(JSON.stringify(entries)).not.toContain(key);

    // Revoked in Settings like any key: the next export makes another, and says so.
    const revoked = first.keys.find((key) => key.application_id === backend)!;
    await t.engine.workbench.revokeApplicationKey({ application_id: backend, key_id: revoked.key_id });
    const next = await t.engine.workbench.exportSeed({ include_tokens: false });
    expect(next.keys.find((key) => key.application_id === backend)).toMatchObject({ made: true, key_id: expect.not.stringMatching(revoked.key_id) });
    expect(next.keys.find((key) => key.application_id !== backend)).toMatchObject({ made: false });
    const revokedKey = seedFile.parse(first.seed).applications.find((app) => app.name === 'Tokenbench backend')!.key;
    expect((await t.call('GET', '/applications/key', { key: revokedKey })).status).toBe(401);
  });

  it('records the tokens an export reveals: how many, and their ids while they are few', async () => {
    const t = await start();
    const tokenize = (n: number) => t.call('POST', '/tokenize', { key: t.privateKey, body: Array.from({ length: n }, (_, i) => ({ type: 'token', data: `secret-${i}` })) });
    const few = (await tokenize(SEED_TOKEN_IDS_LISTED)).body.map((token: { id: string }) => token.id);
    await t.engine.workbench.exportSeed({ include_tokens: true });
    await tokenize(1);
    await t.engine.workbench.exportSeed({ include_tokens: true });
    const [many, listed] = (await workbenchEntries(t)).filter((entry) => entry.method === 'REVEAL');
    expect(listed.reveal).toMatchObject({ token_count: SEED_TOKEN_IDS_LISTED, token_ids: expect.arrayContaining(few), summary: expect.stringMatching(/, and the data of 20 tokens$/) });
    expect(many.reveal).toMatchObject({ token_count: SEED_TOKEN_IDS_LISTED + 1, token_ids: null, summary: expect.stringMatching(/, and the data of 21 tokens$/) });
    expect(JSON.stringify([many, listed])).not.toContain('secret-');
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

/**
 * Tokens whose fingerprints pad their data to `pad` characters: 600,000 (the issue's seed) is far past what 100 tokens
 * may spend together, 20,000 is all of it.
 */
const padded = (count: number, pad: number, prefix: string) => ({
  tokens: Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, type: 'token', data: `v${i}`, fingerprint_expression: `{{ data | pad_left: ${pad}, 'x' }}` })),
});

/**
 * The one bound tests put on time: no client waits over 1 s while another's request runs (the house's target). One
 * slice of a seed's planning, or the write of a few thousand prepared tokens, is a small fraction of that, so the bound
 * holds on a loaded 2-core machine too; an import that does not yield holds every client for all of its work.
 */
const PROBE_BOUND_MS = 1_000;

/**
 * Runs `heavy` while another client reads a token with its key again and again, each read sent as the last one is
 * answered, so one is always waiting on the engine; answers `heavy`'s result and the slowest read.
 */
async function besideProbes<T>(t: TestEngine, key: string, tokenId: string, heavy: () => Promise<T>): Promise<{ result: T; slowest: number }> {
  let done = false;
  let slowest = 0;
  const probing = (async () => {
    while (!done) {
      const sent = performance.now();
      const read = await t.call('GET', `/tokens/${tokenId}`, { key });
      if (read.status !== 200) throw new Error(`the probe got ${read.status}: ${read.text}`);
      slowest = Math.max(slowest, performance.now() - sent);
    }
  })();
  let result: T;
  try {
    result = await heavy();
  } finally {
    done = true;
    // The read sent last may have waited through the whole of `heavy`: it counts once it is answered.
    await probing;
  }
  return { result, slowest };
}

describe('importing a large seed', () => {
  it('gives each 100 tokens one expression budget, as /tokenize does: a token over it is a 400 naming it, and nothing is written', async () => {
    const t = await start();
    const seed = { applications: [{ name: 'Seeded', type: 'private', permissions: ['token:read'], key: 'the-seeded-key-of-24-chars-or-more' }], ...padded(1_500, 600_000, 'seed') };
    for (const apply of [false, true]) {
      const answer = await importSeed(t, seed, apply);
      // Three tokens spend 1,800,000 of the 2,097,152 characters their group may; the fourth goes over.
      expect(answer).toMatchObject({ ok: false, problem: { status: 400, detail: expect.stringMatching(/^token seed-3: Expression \{\{ data \| pad_left: 600000, 'x' \}\} is over/) } });
      expect(t.engine.status()).toMatchObject({ applicationCount: 2, tokenCount: 0 });
    }
    // The next group has a budget of its own: 100 tokens of 20,000 characters each fit in one, and 250 in three.
    const fits = await importSeed(t, padded(250, 20_000, 'fits'), true);
    expect(fits.ok && fits.report.created).toHaveLength(250);
  });

  it("answers another client's reads within 1 s while it plans and writes a seed, dry run and apply", async () => {
    const t = await start();
    const probeId = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'probe' } })).body.id as string;
    const call = (seed: unknown, apply: boolean) => besideProbes(t, t.privateKey, probeId, () => t.workbench('importSeed', { seed, apply }));
    const cases: [what: string, seed: unknown, status: number][] = [
      ["the issue's 1,500 tokens over their budget", padded(1_500, 600_000, 'seed'), 400],
      ['3,000 tokens that spend their whole budget', padded(3_000, 20_000, 'heavy'), 200],
    ];
    for (const [what, seed, status] of cases) {
      for (const apply of [false, true]) {
        const { result, slowest } = await call(seed, apply);
        expect(slowest, `the slowest read beside ${what}, ${apply ? 'apply' : 'dry run'}`).toBeLessThan(PROBE_BOUND_MS);
        expect((result as ApiResponse).status, `${what}, ${apply ? 'apply' : 'dry run'}: ${(result as ApiResponse).text.slice(0, 200)}`).toBe(status);
      }
    }
    expect(t.engine.status().tokenCount).toBe(1 + 3_000);
  }, 60_000);

  it('judges an entry another client makes while the seed is planned as it stands at the write: a conflict, not overwritten', async () => {
    const t = await start();
    const seed = {
      applications: [{ name: 'Seeded', type: 'private', permissions: ['token:read'], key: 'the-seeded-key-of-24-chars-or-more' }],
      ...padded(4_000, 1_000, 'raced'),
    };
    // Planning starts within the call: the seed's application and first tokens are judged free before the writes below,
    // which land while the other 39 slices are planned.
    const applying = importSeed(t, seed, true);
    const token = await t.call('POST', '/tokens', { key: t.privateKey, body: { id: 'raced-0', type: 'token', data: 'theirs' } });
    const app = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'Seeded', type: 'private', permissions: ['token:read'] } });
    // Both landed before the seed's write: the vault changed between the plan and the write.
    expect([token.status, app.status]).toEqual([201, 201]);
    const applied = await applying;
    expect(applied.ok && applied.report.conflicts).toEqual([
      'application "Seeded": an application of that name exists with another key',
      'token raced-0: exists with other data, fingerprint_expression',
    ]);
    expect(applied.ok && applied.report.created).toHaveLength(3_999);
    const reveal = await revealKey(t);
    expect((await t.call('GET', '/tokens/raced-0', { key: reveal })).body.data).toBe('theirs');
    expect(t.engine.status()).toMatchObject({ applicationCount: 4, tokenCount: 4_000 });
  });

  it('applied twice at once, creates each entry once and reports the later apply unchanged', async () => {
    const t = await start();
    const seed = {
      applications: [{ name: 'Seeded', type: 'private', permissions: ['token:read'], key: 'the-seeded-key-of-24-chars-or-more' }],
      ...padded(1_000, 20_000, 'twice'),
    };
    const [first, second] = await Promise.all([importSeed(t, seed, true), importSeed(t, seed, true)]);
    expect(first.ok && first.report.created).toHaveLength(1_001);
    expect(second.ok && second.report).toMatchObject({ created: [], conflicts: [] });
    expect(second.ok && second.report.unchanged).toHaveLength(1_001);
    expect(t.engine.status()).toMatchObject({ applicationCount: 3, tokenCount: 1_000 });
  });
});
