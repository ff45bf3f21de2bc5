import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionPageSchema, type TransactionFilter, type TransactionPage, type TransactionView } from '../../shared/workbench/transaction-contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The Transactions page's list with thousands kept: a page at a time, newest first, filtered by state in the engine,
 * with counts of them all. Everything is made through the HTTP API, many requests at once, as a busy backend would.
 */
const CREATED = 2000;
const COMMITTED = 300;
const ROLLED_BACK = 200;
const STAGED = 40;
const OPEN = CREATED - COMMITTED - ROLLED_BACK;

let t: TestEngine;
/** Transaction id → the state the test left it in. */
const states = new Map<string, TransactionView['state']>();
/** Transaction id → the token staged in it. */
const stagedIn = new Map<string, string>();

/** Runs `work` over `items`, `width` requests in flight at a time. */
async function concurrently<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

async function list(request: Record<string, unknown>): Promise<TransactionPage> {
  const res = await t.workbench('listTransactions', request);
  expect(res.status, res.text).toBe(200);
  return transactionPageSchema.parse(res.body);
}

/** Every page of a list, following `next` until it is null. */
async function walk(request: { state?: TransactionFilter; limit?: number }): Promise<{ pages: TransactionPage[]; listed: TransactionView[] }> {
  const pages = [await list(request)];
  while (pages.at(-1)!.next !== null) pages.push(await list({ ...request, before: pages.at(-1)!.next }));
  return { pages, listed: pages.flatMap((page) => page.transactions) };
}

const newestFirst = (a: TransactionView, b: TransactionView) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1);
const idsIn = (state: TransactionView['state'] | 'ended') =>
  [...states].filter(([, s]) => (state === 'ended' ? s !== 'open' : s === state)).map(([id]) => id);

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
  await concurrently(
    Array.from({ length: CREATED }, (_, i) => i),
    32,
    async () => {
      const res = await t.call('POST', '/transactions', { key: t.privateKey });
      expect(res.status).toBe(201);
      states.set(res.body.id, 'open');
    },
  );
  const ids = [...states.keys()];
  const endings = ids.slice(0, COMMITTED + ROLLED_BACK).map((id, i) => [id, i < COMMITTED ? 'commit' : 'rollback'] as const);
  await concurrently(endings, 32, async ([id, end]) => {
    expect((await t.call('POST', `/transactions/${id}/${end}`, { key: t.privateKey })).status).toBe(200);
    states.set(id, end === 'commit' ? 'committed' : 'rolled_back');
  });
  // Some open ones hold a staged token: each view must carry its own operations, read with the rest of its page.
  await concurrently(ids.slice(-STAGED), 8, async (id) => {
    const res = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: '4242424242424242' }, headers: { 'BT-TRANSACTION-ID': id } });
    expect(res.status).toBe(201);
    stagedIn.set(id, res.body.id);
  });
}, 120_000);
afterAll(() => t.stop());

describe('listing thousands of transactions a page at a time', () => {
  it('pages through every one, newest first, each once, with the counts of them all', async () => {
    const { pages, listed } = await walk({ limit: 500 });
    expect(pages.map((page) => page.transactions.length)).toEqual([500, 500, 500, 500]);
    expect(listed.map((view) => view.id).sort()).toEqual([...states.keys()].sort());
    expect(listed).toEqual([...listed].sort(newestFirst));
    for (const page of pages) expect(page.counts).toEqual({ kept: CREATED, open: OPEN, committed: COMMITTED, rolled_back: ROLLED_BACK, expired: 0 });
    for (const view of listed) expect(view.state).toBe(states.get(view.id));
  });

  it('answers a hundred by default, and its cursor leads to the next hundred', async () => {
    const first = await list({});
    expect(first.transactions).toHaveLength(100);
    const second = await list({ before: first.next });
    expect(second.transactions).toHaveLength(100);
    expect(newestFirst(first.transactions.at(-1)!, second.transactions[0])).toBe(-1);
  });

  it('filters by state in the engine, over every kept transaction', async () => {
    for (const state of ['open', 'committed', 'rolled_back', 'expired', 'ended'] as const) {
      const { pages, listed } = await walk({ state, limit: 100 });
      expect(listed.map((view) => view.id).sort(), state).toEqual(idsIn(state).sort());
      expect(listed).toEqual([...listed].sort(newestFirst));
      expect(pages.at(-1)!.next).toBeNull();
      expect(pages).toHaveLength(Math.max(1, Math.ceil(idsIn(state).length / 100)));
    }
  });

  it('gives each view on a page its own operations, token data masked', async () => {
    const { listed } = await walk({ state: 'open', limit: 500 });
    for (const view of listed) {
      const token = stagedIn.get(view.id);
      expect(view.operations.map((op) => [op.token_id, op.operation, op.data])).toEqual(token ? [[token, 'create', 'XXXXXXXXXXXX4242']] : []);
      expect(view.locks).toEqual(token ? [{ token_id: token, kind: 'reserved' }] : []);
    }
    expect(JSON.stringify(listed)).not.toContain('4242424242424242');
  });

  it('refuses a request it cannot serve with problem details, naming the field', async () => {
    for (const [request, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 501 }, 'limit'],
      [{ limit: 1.5 }, 'limit'],
      [{ state: 'pending' }, 'state'],
      [{ before: '' }, 'before'],
      [{ before: 'not a cursor' }, 'before'],
      [{ before: Buffer.from('["x"]').toString('base64url') }, 'before'],
      [{ page: 2 }, 'page'],
    ] as const) {
      const res = await t.workbench('listTransactions', request);
      expect(res.status, JSON.stringify(request)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(JSON.stringify(res.body.errors), JSON.stringify(request)).toContain(field);
    }
  });
});

describe('wiping thousands of transactions', () => {
  it('rolls back the open ones (its listeners hear each), counts every one it removed, and leaves none', async () => {
    const heard: TransactionView[] = [];
    const listener = (view: TransactionView) => heard.push(view);
    t.engine.events.on('transaction', listener);
    const wiped = await t.engine.workbench.wipeVault({ confirm: 'wipe' });
    t.engine.events.off('transaction', listener);
    expect(wiped.transactions).toBe(CREATED);
    expect(heard.map((view) => view.id).sort()).toEqual(idsIn('open').sort());
    expect(heard.every((view) => view.state === 'rolled_back' && view.ended_at !== null && view.operations.every((op) => op.data === null))).toBe(true);
    expect(await list({})).toEqual({ transactions: [], next: null, counts: { kept: 0, open: 0, committed: 0, rolled_back: 0, expired: 0 } });
  });
});
