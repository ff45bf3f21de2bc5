import { describe, expect, it } from 'vitest';
import { tokenPageSchema, type TokenSearch } from '../../shared/workbench/token-contract';
import { revealEverythingKey } from '../support/test-engine';
import { engineForEachTest, PAN } from './support/workbench-engine';

/** The Tokens page's list: the vault searched as an application, newest first, with a total; data never in plaintext. */
const t = engineForEachTest();

async function create(body: Record<string, unknown>, key = t.bench.privateKey, headers?: Record<string, string>): Promise<string> {
  const created = await t.bench.call('POST', '/tokens', { key, body, headers });
  expect(created.status, created.text).toBe(201);
  // Creation times to the millisecond order the list: two tokens never share one here.
  await new Promise((resolve) => setTimeout(resolve, 2));
  return created.body.id;
}

/** The search as the page sends it (over HTTP, validated on both ends). */
async function search(request: Partial<TokenSearch> = {}) {
  const res = await t.bench.workbench('searchTokens', { application_id: t.backend, ...request });
  return { status: res.status, body: res.body, page: res.status === 200 ? tokenPageSchema.parse(res.body) : null };
}

async function applicationWith(rules: unknown[], permissions: string[] = []): Promise<{ id: string; key: string }> {
  const app = await t.bench.call('POST', '/applications', { key: t.bench.managementKey, body: { name: `app ${Math.random()}`, type: 'private', permissions, rules } });
  expect(app.status, app.text).toBe(201);
  return { id: app.body.id, key: app.body.key };
}

describe('the token list', () => {
  it('lists newest first, pages through the cursor, and counts every match', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await create({ type: 'token', data: `value-${i}`, metadata: { n: String(i) } }));
    const first = (await search({ limit: 3 })).page!;
    expect(first.total).toBe(7);
    expect(first.tokens.map((t) => t.id)).toEqual([ids[6], ids[5], ids[4]]);
    const second = (await search({ limit: 3, cursor: first.next! })).page!;
    expect(second.tokens.map((t) => t.id)).toEqual([ids[3], ids[2], ids[1]]);
    const last = (await search({ limit: 3, cursor: second.next! })).page!;
    expect(last.tokens.map((t) => t.id)).toEqual([ids[0]]);
    expect(last.next).toBeNull();
  });

  it('searches in the service language and shows its errors, with the column, never the value', async () => {
    const card = await create({ type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 }, metadata: { order: 'o-1' } });
    await create({ type: 'card', data: { number: '5555555555554444' }, metadata: { order: 'o-2' } });
    const found = (await search({ query: 'type:card metadata.order:o-1' })).page!;
    expect(found.total).toBe(1);
    expect(found.tokens[0]).toMatchObject({ id: card, data: { number: 'XXXXXXXXXXXX4242' }, card: { last4: '4242', brand: 'visa' } });

    const invalid = await search({ query: `type:card AND (metadata.pan:${PAN}` });
    expect(invalid.status).toBe(400);
    expect(invalid.body.detail).toMatch(/^Invalid search query: missing "\)" for the "\(" at column 15/);
    expect(invalid.body.errors).toHaveProperty('query');
    expect(invalid.body.detail).not.toContain(PAN);
  });

  it('applies the quick filters: type, container, expiry, and the ids of a live re-read', async () => {
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const card = await create({ type: 'card_number', data: PAN, expires_at: soon });
    const ssn = await create({ type: 'social_security_number', data: '900-12-3456', expires_at: later });
    const general = await create({ type: 'token', data: 'x', containers: ['/general/low/'] });
    const ids = async (request: Partial<TokenSearch>) => (await search(request)).page!.tokens.map((t) => t.id);
    expect(await ids({ type: 'card_number' })).toEqual([card]);
    expect(await ids({ container: '/PII/' })).toEqual([ssn]);
    expect(await ids({ expiry: 'expires' })).toEqual([ssn, card]);
    expect(await ids({ expiry: 'never' })).toEqual([general]);
    expect(await ids({ expiry: 'within_day' })).toEqual([card]);
    expect(await ids({ ids: [general, card], query: 'type:token' })).toEqual([general]);
    const bad = await search({ container: 'pii' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.container[0]).toMatch(/start and end with "\/"/);
  });

  it("reads as the application: its token:search rules filter, and data it would see in plaintext comes masked", async () => {
    await create({ type: 'card_number', data: PAN });
    await create({ type: 'token', data: 'general' });
    await revealEverythingKey(t.bench, 'reveal all');
    const apps = (await t.bench.workbench('listApplications')).body as { id: string; name: string }[];
    const reveal = apps.find((app) => app.name === 'reveal all')!;
    const revealed = (await search({ application_id: reveal.id })).page!;
    expect(revealed.total).toBe(2);
    expect(JSON.stringify(revealed)).not.toContain(PAN);
    expect(revealed.tokens.find((t) => t.type === 'card_number')!.data).toBe('XXXXXXXXXXXX4242');

    const pciOnly = await applicationWith([{ description: 'pci', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:search'] }]);
    expect((await search({ application_id: pciOnly.id })).page!.tokens.map((t) => t.type)).toEqual(['card_number']);
    const noSearch = await applicationWith([], ['token:read']);
    const refused = await search({ application_id: noSearch.id });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('The application lacks token:search');
    expect((await search({ application_id: 'no-such-app' })).status).toBe(404);
  });
});

describe('tokens in a transaction', () => {
  it('are staged here, invisible to every other reader until the commit, and found by the transaction filter', async () => {
    const opened = await t.bench.call('POST', '/transactions', { key: t.bench.privateKey });
    const transaction = opened.body.id as string;
    const before = await create({ type: 'token', data: 'before' });
    const staged = await create({ type: 'card_number', data: PAN }, t.bench.privateKey, { 'BT-TRANSACTION-ID': transaction });

    const page = (await search()).page!;
    expect(page.tokens.map((t) => t.id)).toEqual([before]);
    expect(page.total).toBe(1);
    expect(page.staged).toEqual([{ token: expect.objectContaining({ id: staged, data: 'XXXXXXXXXXXX4242' }), staged: { transaction_id: transaction, operation: 'create' } }]);
    expect(JSON.stringify(page)).not.toContain(PAN);
    // Other readers, through the wire API, do not see it.
    const outside = await t.bench.call('POST', '/v2/tokens/search', { key: t.bench.privateKey, body: { query: '' } });
    expect(outside.body.data.map((t: { id: string }) => t.id)).toEqual([before]);
    // A query runs in the vault, where staged tokens are not yet: they are counted as left out, not searched.
    expect((await search({ query: 'type:card_number' })).page).toMatchObject({ total: 0, staged: [], staged_unsearched: 1 });
    // Staged rows follow the quick filters too.
    expect((await search({ type: 'token' })).page!.staged).toEqual([]);

    const inTransaction = (await search({ transaction_id: transaction })).page!;
    expect(inTransaction).toMatchObject({ total: 0, tokens: [] });
    expect(inTransaction.staged.map((s) => s.token.id)).toEqual([staged]);

    expect((await t.bench.call('POST', `/transactions/${transaction}/commit`, { key: t.bench.privateKey })).status).toBe(200);
    const committed = (await search({ transaction_id: transaction })).page!;
    expect(committed).toMatchObject({ total: 1, staged: [] });
    expect(committed.tokens.map((t) => t.id)).toEqual([staged]);
    expect((await search({ transaction_id: 'no-such-transaction' })).status).toBe(404);
  });

  it('shows a staged change and a staged delete of committed tokens, and leaves out one created and deleted inside', async () => {
    const changed = await create({ type: 'token', data: 'a', metadata: { v: '1' } });
    const deleted = await create({ type: 'token', data: 'b' });
    const transaction = (await t.bench.call('POST', '/transactions', { key: t.bench.privateKey })).body.id as string;
    const inside = { 'BT-TRANSACTION-ID': transaction, 'content-type': 'application/merge-patch+json' };
    expect((await t.bench.call('PATCH', `/tokens/${changed}`, { key: t.bench.privateKey, raw: '{"metadata":{"v":"2"}}', headers: inside })).status).toBe(200);
    expect((await t.bench.call('DELETE', `/tokens/${deleted}`, { key: t.bench.privateKey, headers: inside })).status).toBe(204);
    const gone = await create({ type: 'token', data: 'c' }, t.bench.privateKey, { 'BT-TRANSACTION-ID': transaction });
    expect((await t.bench.call('DELETE', `/tokens/${gone}`, { key: t.bench.privateKey, headers: inside })).status).toBe(204);

    const { staged } = (await search()).page!;
    expect(staged.map((s) => [s.token.id, s.staged.operation, s.token.metadata])).toEqual([
      [changed, 'update', { v: '2' }],
      [deleted, 'delete', {}],
    ]);
  });
});
