import { create } from 'zustand';
import type { TransactionView } from '../../../shared/workbench/contract';

interface TransactionsState {
  /** Newest first; null until the engine has listed them. */
  transactions: TransactionView[] | null;
  /** The transaction the page shows in detail (and the one other pages act inside). */
  selectedId: string | null;
  /** The application the page creates, commits and rolls back as; null: the usual one (see applicationToUse). */
  applicationId: string | null;
  /** The engine's whole list, on every (re)connect. */
  loaded(transactions: TransactionView[]): void;
  /** Transactions that changed, each in its latest state: created, enlisted in, or ended. */
  merge(changed: readonly TransactionView[]): void;
  select(id: string | null): void;
  actAs(applicationId: string): void;
}

const newestFirst = (a: TransactionView, b: TransactionView) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0);

/** The engine's transactions as the workbench last heard of them, kept current by the live feed. */
export const useTransactionsStore = create<TransactionsState>()((set) => ({
  transactions: null,
  selectedId: null,
  applicationId: null,
  loaded: (transactions) => set({ transactions: [...transactions].sort(newestFirst) }),
  merge: (changed) =>
    set(({ transactions }) => {
      if (changed.length === 0) return {};
      const byId = new Map((transactions ?? []).map((transaction) => [transaction.id, transaction]));
      for (const transaction of changed) byId.set(transaction.id, transaction);
      return { transactions: [...byId.values()].sort(newestFirst) };
    }),
  select: (selectedId) => set({ selectedId }),
  actAs: (applicationId) => set({ applicationId }),
}));
