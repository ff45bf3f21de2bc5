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

describe('finding a card, and tokens by metadata, in one search box', () => {
  const AMEX = '378282246310005';
  const VISA_2 = '4000056655665556';
  const MASTERCARD = '5555555555554444';

  /** Cards of three brands and two expiries, a metadata-only token that names a brand, and an SSN. */
  async function vault() {
    const visa = await create({ type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 }, metadata: { order: 'o-1', customer: 'Cus_ABC' } });
    const mastercard = await create({ type: 'card_number', data: MASTERCARD });
    const amex = await create({ type: 'card', data: { number: AMEX, expiration_month: 3, expiration_year: 2030 } });
    const visa2 = await create({ type: 'card', data: { number: VISA_2, expiration_month: 12, expiration_year: 2031 } });
    const note = await create({ type: 'token', data: 'x', metadata: { note: 'Visa' } });
    const ssn = await create({ type: 'social_security_number', data: '123-45-6789' });
    return { visa, mastercard, amex, visa2, note, ssn };
  }

  async function found(query: string): Promise<string[]> {
    const res = await search({ query });
    expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(PAN);
    expect(res.page!.total).toBe(res.page!.tokens.length);
    return res.page!.tokens.map((token) => token.id);
  }

  it('finds a card by its last four, BIN, brand, expiry or whole number typed alone', async () => {
    const v = await vault();
    expect(await found('4242')).toEqual([v.visa]);
    expect(await found('0005')).toEqual([v.amex]);
    expect(await found('424242')).toEqual([v.visa]);
    expect(await found('42424242')).toEqual([v.visa]);
    expect(await found('40000566')).toEqual([v.visa2]);
    expect(await found('378282')).toEqual([v.amex]);
    // A brand typed alone is also a metadata value: the token noting "Visa" is found beside the cards.
    expect(await found('visa')).toEqual([v.note, v.visa2, v.visa]);
    expect(await found('Mastercard')).toEqual([v.mastercard]);
    expect(await found('"American Express"')).toEqual([v.amex]);
    expect(await found('amex')).toEqual([v.amex]);
    expect(await found('12/2031')).toEqual([v.visa2, v.visa]);
    expect(await found('2031-12')).toEqual([v.visa2, v.visa]);
    expect(await found('12/31')).toEqual([v.visa2, v.visa]);
    expect(await found('3/2030')).toEqual([v.amex]);
    expect(await found(PAN)).toEqual([v.visa]);
    expect(await found('"4242 4242 4242 4242"')).toEqual([v.visa]);
    expect(await found(MASTERCARD)).toEqual([v.mastercard]);
    // Words are ANDed, and mix with the service's fields.
    expect(await found('visa 12/2031 5556')).toEqual([v.visa2]);
    expect(await found('type:card AND NOT 2030-03')).toEqual([v.visa2, v.visa]);
    expect(await found('9999')).toEqual([]);
  });

  it('finds a token by a metadata value in any case, by its id, or by a value of its search indexes, typed alone', async () => {
    const v = await vault();
    expect(await found('o-1')).toEqual([v.visa]);
    expect(await found('O-1')).toEqual([v.visa]);
    expect(await found('cus_abc')).toEqual([v.visa]);
    expect(await found(v.amex)).toEqual([v.amex]);
    expect(await found('123-45-6789')).toEqual([v.ssn]);
    expect(await found('6789')).toEqual([v.ssn]);
  });

  it('takes the card fields by name too, and the service fields as before', async () => {
    const v = await vault();
    expect(await found('card.last4:4242')).toEqual([v.visa]);
    expect(await found('card.last4:4444')).toEqual([v.mastercard]);
    expect(await found('card.bin:424242')).toEqual([v.visa]);
    expect(await found('card.bin:55555555')).toEqual([v.mastercard]);
    expect(await found('card.brand:visa')).toEqual([v.visa2, v.visa]);
    expect(await found('card.brand:"american express"')).toEqual([v.amex]);
    expect(await found('card.expiry:2031-12')).toEqual([v.visa2, v.visa]);
    expect(await found('card.expiry:03/2030')).toEqual([v.amex]);
    expect(await found(`card.number:${AMEX}`)).toEqual([v.amex]);
    expect(await found('metadata.order:o-1')).toEqual([v.visa]);
    expect(await found('card.brand:visa AND NOT card.last4:4242')).toEqual([v.visa2]);
    expect(await found('card.brand:visa OR metadata.note:Visa')).toEqual([v.note, v.visa2, v.visa]);
    // Pages of a common term, which the list reads in its own order, looking each token up among the terms.
    const twoPages = async (query: string) => {
      const first = (await search({ query, limit: 1 })).page!;
      const second = (await search({ query, limit: 1, cursor: first.next! })).page!;
      return { total: first.total, ids: [...first.tokens, ...second.tokens].map((token) => token.id) };
    };
    expect(await twoPages('card.brand:visa')).toEqual({ total: 2, ids: [v.visa2, v.visa] });
    expect(await twoPages('visa')).toEqual({ total: 3, ids: [v.note, v.visa2] });
    // The service's own search stays as the vendor documents it: no card fields, no words without a field.
    for (const query of ['card.last4:4242', '4242']) {
      const res = await t.bench.call('POST', '/v2/tokens/search', { key: t.bench.privateKey, body: { query } });
      expect(res.status, query).toBe(400);
    }
  });

  it('says what is wrong with a card term and where, never repeating the value', async () => {
    await vault();
    const wrong = async (query: string, message: RegExp) => {
      const res = await search({ query });
      expect(res.status, query).toBe(400);
      expect(res.body.errors.query[0]).toMatch(message);
      expect(res.body.detail).toBe(`Invalid search query: ${res.body.errors.query[0]}`);
      return res.body.detail as string;
    };
    await wrong('card.last4:42', /^card\.last4 at column 1 takes the last 4 digits of a card number/);
    await wrong('type:card card.bin:4242', /^card\.bin at column 11 takes the first 6 or 8 digits/);
    expect(await wrong(`card.number:${PAN}0000`, /card\.number at column 1 takes a whole card number: 13 to 19 digits/)).not.toContain(PAN);
    await wrong('card.brand:visaa', /card\.brand at column 1 takes one of visa, mastercard, american-express/);
    await wrong('card.expiry:13/2030', /card\.expiry at column 1 takes a month and year/);
    await wrong('card.cvc:123', /unknown field at column 1; fields are .*card\.last4/);
  });

  it('keeps up with the token: an update, a delete, and a transaction, which adds its cards when it commits', async () => {
    const id = await create({ type: 'card', data: { number: PAN, expiration_month: 1, expiration_year: 2030 }, metadata: { order: 'o-9' } });
    const patch = (body: unknown, headers: Record<string, string> = {}) =>
      t.bench.call('PATCH', `/tokens/${id}`, { key: t.bench.privateKey, raw: JSON.stringify(body), headers: { 'content-type': 'application/merge-patch+json', ...headers } });
    expect((await patch({ data: { number: MASTERCARD, expiration_year: 2032 }, metadata: { order: 'o-10' } })).status).toBe(200);
    expect(await found('4242')).toEqual([]);
    expect(await found('2030-01')).toEqual([]);
    expect(await found('o-9')).toEqual([]);
    expect(await found('4444')).toEqual([id]);
    expect(await found('2032-01')).toEqual([id]);
    expect(await found('mastercard')).toEqual([id]);
    expect(await found('o-10')).toEqual([id]);
    expect((await t.bench.call('DELETE', `/tokens/${id}`, { key: t.bench.privateKey })).status).toBe(204);
    expect(await found('4444')).toEqual([]);

    // An expired token is gone for every search, counted or listed, before the purge removes its row.
    await create({ type: 'card_number', data: MASTERCARD, expires_at: new Date(Date.now() + 1000).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await found('4444')).toEqual([]);
    expect(await found('card.last4:4444')).toEqual([]);

    const transaction = (await t.bench.call('POST', '/transactions', { key: t.bench.privateKey })).body.id as string;
    const staged = await create({ type: 'card_number', data: AMEX }, t.bench.privateKey, { 'BT-TRANSACTION-ID': transaction });
    expect((await search({ query: '0005' })).page).toMatchObject({ total: 0, staged_unsearched: 1 });
    expect((await t.bench.call('POST', `/transactions/${transaction}/commit`, { key: t.bench.privateKey })).status).toBe(200);
    expect(await found('0005')).toEqual([staged]);
    expect(await found('amex')).toEqual([staged]);
  });
});

