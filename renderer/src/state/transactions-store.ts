import { create } from 'zustand';
import { progressOf, type TransactionCounts, type TransactionFilter, type TransactionPage, type TransactionView } from '../../../shared/workbench/transaction-contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { joinsListed, newestFirst } from './newest-first';

/** What the list shows: every kept transaction, those in one state, or the ended ones. */
export type TransactionsShown = 'all' | TransactionFilter;

/** Transactions per page: the first load, each reconnect, each filter, and each "Load older". */
export const TRANSACTIONS_PAGE = 100;
/** The most the list keeps: live ones push the oldest out (the engine keeps them; they are not lost). */
export const MAX_LISTED_TRANSACTIONS = 500;

interface TransactionsState {
  shown: TransactionsShown;
  /** Newest first, those `shown` lets through; null while the engine lists them. */
  transactions: TransactionView[] | null;
  /** Where the next older page starts; null once the oldest is listed, or the list is full. */
  next: string | null;
  /** Live transactions pushed the oldest out of the list, so it pages no further back. */
  full: boolean;
  /** How many the engine keeps, in all and per state, as of the last page or live update. */
  counts: TransactionCounts | null;
  /** The transaction the page shows in detail (and the one other pages act inside). */
  selectedId: string | null;
  /** The selected transaction as last heard: kept when the list's filter leaves it out. */
  selected: TransactionView | null;
  /** The application the page creates, commits and rolls back as; null: the usual one (see applicationToUse). */
  applicationId: string | null;
  /**
   * While pages are being read (`pagesAsked` of them): each transaction as last heard live meanwhile, so a page read
   * before a change and answered after it moves no view back, nor drops a transaction opened meanwhile. Null otherwise.
   */
  heard: Map<string, TransactionView> | null;
  pagesAsked: number;
  /** Shows another filter: the list is empty until its first page arrives. */
  show(shown: TransactionsShown): void;
  /** A page is asked for: until it has answered or failed (`answered`), what is heard live is kept for it. */
  asking(): void;
  answered(): void;
  /**
   * The first page for `shown`, in place of the list; dropped if the list has moved on to another filter. A view heard
   * further along than the page's is kept, and the selected transaction is let go once the whole filter is listed
   * without it (gone: the vault was wiped).
   */
  loaded(shown: TransactionsShown, page: TransactionPage): void;
  /** The page after `before`, added below the list; dropped if the list has moved on since it was asked for. */
  loadedOlder(shown: TransactionsShown, before: string, page: TransactionPage): void;
  /**
   * Transactions that changed, each in its latest state (created, enlisted in, or ended), and the counts after them;
   * a view behind the one listed (heard late) is dropped.
   */
  merge(changed: readonly TransactionView[], counts?: TransactionCounts): void;
  select(id: string | null): void;
  actAs(applicationId: string): void;
}

export const matchesShown = (transaction: TransactionView, shown: TransactionsShown): boolean =>
  shown === 'all' || transaction.state === shown || (shown === 'ended' && transaction.state !== 'open');

/** How many the engine keeps that `shown` lets through. */
export const countShown = (counts: TransactionCounts, shown: TransactionsShown): number =>
  shown === 'all' ? counts.kept : shown === 'ended' ? counts.kept - counts.open : counts[shown];

/** The view further along of two of one transaction: a page's or a batch's read is never let move it back. */
const furthest = (read: TransactionView, held: TransactionView | null | undefined): TransactionView =>
  held && progressOf(held) > progressOf(read) ? held : read;

/** Every view of a transaction the store holds, the furthest along of each (see furthest). */
function heldViews(state: TransactionsState): Map<string, TransactionView> {
  const held = new Map((state.transactions ?? []).map((transaction) => [transaction.id, transaction]));
  for (const view of [...(state.selected ? [state.selected] : []), ...(state.heard?.values() ?? [])]) held.set(view.id, furthest(view, held.get(view.id)));
  return held;
}

/** The engine's transactions as the page lists them, kept current by the live feed. */
export const useTransactionsStore = create<TransactionsState>()((set) => ({
  shown: 'all',
  transactions: null,
  next: null,
  full: false,
  counts: null,
  selectedId: null,
  selected: null,
  applicationId: null,
  heard: null,
  pagesAsked: 0,
  show: (shown) => set({ shown, transactions: null, next: null, full: false }),
  asking: () => set((state) => ({ pagesAsked: state.pagesAsked + 1, heard: state.heard ?? new Map() })),
  answered: () => set((state) => (state.pagesAsked > 1 ? { pagesAsked: state.pagesAsked - 1 } : { pagesAsked: 0, heard: null })),
  loaded: (shown, page) =>
    set((state) => {
      if (state.shown !== shown) return {};
      const held = heldViews(state);
      const read = page.transactions.map((transaction) => furthest(transaction, held.get(transaction.id))).filter((transaction) => matchesShown(transaction, shown));
      const listed = new Set(page.transactions.map((transaction) => transaction.id));
      // Opened or changed into the filter after the page was read: it joins where its page would have it.
      const since = [...(state.heard?.values() ?? [])].filter(
        (transaction) => !listed.has(transaction.id) && matchesShown(transaction, shown) && joinsListed(transaction, read, page.next !== null),
      );
      const transactions = [...read, ...since].sort(newestFirst);
      const selected = transactions.find((transaction) => transaction.id === state.selectedId);
      const gone = page.next === null && state.selected !== null && matchesShown(state.selected, shown);
      return { transactions, next: page.next, full: false, counts: page.counts, selected: selected ?? (gone ? null : state.selected) };
    }),
  loadedOlder: (shown, before, page) =>
    set((state) => {
      if (state.shown !== shown || state.next !== before || state.transactions === null) return {};
      const held = heldViews(state);
      const listed = new Set(state.transactions.map((transaction) => transaction.id));
      // A transaction that changed live may have moved since; the list keeps the newer word of it.
      const older = page.transactions
        .filter((transaction) => !listed.has(transaction.id))
        .map((transaction) => furthest(transaction, held.get(transaction.id)))
        .filter((transaction) => matchesShown(transaction, shown));
      return { transactions: [...state.transactions, ...older], next: page.next, counts: page.counts };
    }),
  merge: (changed, counts) =>
    set((state) => {
      const heard = changed.find((transaction) => transaction.id === state.selectedId);
      const patch: Partial<TransactionsState> = { ...(counts && { counts }), ...(heard && { selected: furthest(heard, state.selected) }) };
      if (state.heard && changed.length > 0) {
        const kept = new Map(state.heard);
        for (const transaction of changed) kept.set(transaction.id, furthest(transaction, kept.get(transaction.id)));
        patch.heard = kept;
      }
      if (state.transactions === null || changed.length === 0) return patch;
      const byId = new Map(state.transactions.map((transaction) => [transaction.id, transaction]));
      for (const heardView of changed) {
        const transaction = furthest(heardView, byId.get(heardView.id));
        // One that no longer matches (it ended under "open") leaves; a new one joins where its page would have it.
        if (!matchesShown(transaction, state.shown)) byId.delete(transaction.id);
        else if (byId.has(transaction.id) || joinsListed(transaction, state.transactions, state.next !== null)) byId.set(transaction.id, transaction);
      }
      const all = [...byId.values()].sort(newestFirst);
      if (all.length <= MAX_LISTED_TRANSACTIONS) return { ...patch, transactions: all };
      return { ...patch, transactions: all.slice(0, MAX_LISTED_TRANSACTIONS), next: null, full: true };
    }),
  select: (selectedId) =>
    set((state) => ({
      selectedId,
      selected: state.transactions?.find((transaction) => transaction.id === selectedId) ?? (state.selected?.id === selectedId ? state.selected : null),
    })),
  actAs: (applicationId) => set({ applicationId }),
}));

const requestOf = (shown: TransactionsShown) => (shown === 'all' ? {} : { state: shown });

/** Reads a page, keeping what is heard live while it is read (see TransactionsState.heard). */
async function asked(read: () => Promise<void>): Promise<void> {
  useTransactionsStore.getState().asking();
  try {
    await read();
  } finally {
    useTransactionsStore.getState().answered();
  }
}

/** Reads the list's first page under its filter: on every (re)connect, and after a wipe here or on another replica. */
export function loadTransactions(api: WorkbenchApi): Promise<void> {
  const { shown } = useTransactionsStore.getState();
  return asked(async () => useTransactionsStore.getState().loaded(shown, await api.listTransactions({ ...requestOf(shown), limit: TRANSACTIONS_PAGE })));
}

/** Lists another filter's transactions, read by the engine from every one it keeps. */
export async function showTransactions(api: WorkbenchApi, shown: TransactionsShown): Promise<void> {
  useTransactionsStore.getState().show(shown);
  await loadTransactions(api);
}

/** Adds the next older page below the list. */
export async function loadOlderTransactions(api: WorkbenchApi): Promise<void> {
  const { shown, next } = useTransactionsStore.getState();
  if (next === null) return;
  await asked(async () =>
    useTransactionsStore.getState().loadedOlder(shown, next, await api.listTransactions({ ...requestOf(shown), limit: TRANSACTIONS_PAGE, before: next })),
  );
}
