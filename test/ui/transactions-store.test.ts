import { beforeEach, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../shared/workbench/methods';
import type { TransactionCounts, TransactionPage, TransactionView } from '../../shared/workbench/transaction-contract';
import { loadTransactions, showTransactions, useTransactionsStore } from '../../renderer/src/state/transactions-store';

/** The Transactions page's store: pages read from the engine and live views merged, a view never going back. */
const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 0, 0, second)).toISOString();
const counts: TransactionCounts = { kept: 0, open: 0, committed: 0, rolled_back: 0, expired: 0 };

function view(n: number, state: TransactionView['state'], operations = 0): TransactionView {
  return {
    id: `t-${n}`,
    state,
    created_by: 'app-1',
    created_at: at(n),
    expires_at: at(n + 60),
    ended_at: state === 'open' ? null : at(n + 1),
    time_left_ms: state === 'open' ? 60_000 : 0,
    operations: Array.from({ length: operations }, (_, i) => ({ token_id: `token-${i}`, operation: 'create', enlisted_at: at(n), application_id: 'app-1', data: null })),
    locks: [],
    on_commit: [],
  };
}

const page = (transactions: TransactionView[], next: string | null = null): TransactionPage => ({ transactions, next, counts });

/** An engine whose listing answers only when the test says, as a page read before a change and answered after it. */
function slowEngine() {
  const asked: ((page: TransactionPage) => void)[] = [];
  const api = { listTransactions: () => new Promise<TransactionPage>((resolve) => asked.push(resolve)) } as unknown as WorkbenchApi;
  return { api, answer: (answer: TransactionPage) => asked.shift()!(answer) };
}

const listed = () => useTransactionsStore.getState().transactions?.map((transaction) => [transaction.id, transaction.state, transaction.operations.length]);
const store = () => useTransactionsStore.getState();

beforeEach(() =>
  useTransactionsStore.setState({ shown: 'all', transactions: null, next: null, full: false, counts: null, selectedId: null, selected: null, heard: null, pagesAsked: 0 }),
);

it('a page read before live changes and answered after them moves no transaction back, nor drops one opened meanwhile', async () => {
  store().loaded('all', page([view(1, 'open')]));
  store().select('t-1');
  const engine = slowEngine();
  const loading = loadTransactions(engine.api);
  // Heard while the page was being read: t-1 staged in, then committed; t-2 opened.
  store().merge([view(1, 'open', 1)]);
  store().merge([view(1, 'committed', 1), view(2, 'open')]);
  engine.answer(page([view(1, 'open')]));
  await loading;
  expect(listed()).toEqual([
    ['t-2', 'open', 0],
    ['t-1', 'committed', 1],
  ]);
  expect(store().selected).toMatchObject({ id: 't-1', state: 'committed' });
  // Once the page has answered, nothing more is kept for it.
  expect(store().heard).toBeNull();
});

it('under a filter shown anew, a transaction that left it while its first page was read is not listed', async () => {
  const engine = slowEngine();
  const showing = showTransactions(engine.api, 'open');
  store().merge([view(1, 'rolled_back', 2)]);
  engine.answer(page([view(1, 'open', 2), view(0, 'open')]));
  await showing;
  expect(listed()).toEqual([['t-0', 'open', 0]]);
});

it('a live view behind the one listed (read before it, heard after it) is dropped', () => {
  store().loaded('all', page([view(1, 'committed', 2)]));
  store().select('t-1');
  store().merge([view(1, 'open', 1)]);
  expect(listed()).toEqual([['t-1', 'committed', 2]]);
  expect(store().selected).toMatchObject({ state: 'committed' });
});

it('a page listing its whole filter without the selected transaction lets it go (the vault was wiped)', async () => {
  store().loaded('all', page([view(1, 'open', 1)]));
  store().select('t-1');
  const engine = slowEngine();
  const loading = loadTransactions(engine.api);
  engine.answer(page([]));
  await loading;
  expect(listed()).toEqual([]);
  expect(store().selected).toBeNull();
});

it('a selected transaction the filter leaves out stays selected', () => {
  store().loaded('all', page([view(1, 'committed')]));
  store().select('t-1');
  store().show('open');
  store().loaded('open', page([]));
  expect(store().selected).toMatchObject({ id: 't-1', state: 'committed' });
});
