import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { TransactionView } from '../../../shared/workbench/transaction-contract';
import type { StagedToken, TokenChange, TokenExpiryFilter, TokenPage, TokenView } from '../../../shared/workbench/token-contract';
import { joinsListed, newestFirst } from './newest-first';

/** What the list shows: the query in the service's language and the quick filters ('' for any). */
export interface TokenFilters {
  query: string;
  type: string;
  container: string;
  expiry: TokenExpiryFilter | '';
  /** Only the tokens this transaction created. */
  createdIn: string;
}

export const NO_FILTERS: TokenFilters = { query: '', type: '', container: '', expiry: '', createdIn: '' };

/** Nine digits or more, spaces or dashes between them allowed: an SSN, an account or a card number. */
const LONG_DIGIT_RUN = /\d(?:[\s-]?\d){8,}/;

/** The most changed ids kept for the list to re-read; past it, the list reads itself again. */
const MAX_PENDING = 200;

/** Token changes heard on the live road and not yet applied to the list. */
export interface PendingChanges {
  ids: Map<string, TokenChange['change']>;
  /** Too many to list, or the engine said so: read the list again. */
  reload: boolean;
  /** Transactions changed: their staged tokens and the open ones to pick from. */
  transactions: boolean;
}

const NOTHING_PENDING: PendingChanges = { ids: new Map(), reload: false, transactions: false };

export type TokenPanel =
  | { kind: 'detail'; id: string; stagedIn: string | null }
  | { kind: 'create' }
  | { kind: 'intent'; id: string }
  | { kind: 'create-intent' }
  | { kind: 'none' };

/** What the list side shows: the vault's tokens, or the live token intents. */
export type TokenListTab = 'tokens' | 'intents';

interface TokensState {
  /** The application the page acts as; null: the usual one (applicationToUse). */
  applicationId: string | null;
  /** The open transaction the page's writes go into; null: they apply at once. */
  transactionId: string | null;
  filters: TokenFilters;
  tokens: TokenView[];
  staged: StagedToken[];
  stagedUnsearched: number;
  total: number | null;
  next: string | null;
  loading: boolean;
  /** Why the list could not be read (an invalid query: the engine's message, column included). */
  problem: string | null;
  /** The filter the problem is about (`query`, `container`), which alone is marked invalid; null for any other failure. */
  problemField: string | null;
  /** Tokens from before card search not indexed yet, as the last read said. */
  unindexed: number;
  panel: TokenPanel;
  listTab: TokenListTab;
  /** A sentence about what the page just did (created a token). */
  notice: string | null;
  /** The open transactions and the latest of any state, newest first. */
  transactions: TransactionView[];
  pending: PendingChanges;
  /** Bumped whenever changes are heard, so the page knows to apply them. */
  heardAt: number;

  chooseApplication(id: string): void;
  chooseTransaction(id: string | null): void;
  filter(filters: TokenFilters): void;
  /** A first page replaces the list; a later one (`more`) adds to it. */
  loaded(page: TokenPage, more: boolean): void;
  loadFailed(problem: string, field?: string | null): void;
  startLoading(): void;
  /** Re-read tokens replace those listed (or join them in order); `gone` are taken out. */
  reread(found: TokenView[], gone: readonly string[], total: number): void;
  restaged(page: TokenPage): void;
  show(panel: TokenPanel, notice?: string | null): void;
  showList(tab: TokenListTab): void;
  transactionsListed(transactions: TransactionView[]): void;
  heard(changes: readonly TokenChange[], more: boolean, transactions: boolean): void;
  /** The changes heard so far, now the page's to apply. */
  takePending(): PendingChanges;
}


/** The Tokens page: the list as last read, the filters, the panel beside it; the application and filters kept across reloads. */
export const useTokensStore = create<TokensState>()(
  persist(
    (set, get) => ({
      applicationId: null,
      transactionId: null,
      filters: NO_FILTERS,
      tokens: [],
      staged: [],
      stagedUnsearched: 0,
      total: null,
      next: null,
      loading: false,
      problem: null,
      problemField: null,
      unindexed: 0,
      panel: { kind: 'none' },
      listTab: 'tokens',
      notice: null,
      transactions: [],
      pending: NOTHING_PENDING,
      heardAt: 0,

      chooseApplication: (applicationId) => set({ applicationId }),
      chooseTransaction: (transactionId) => set({ transactionId }),
      filter: (filters) => set({ filters }),
      startLoading: () => set({ loading: true }),
      loaded: (page, more) =>
        set(({ tokens }) => ({
          tokens: more ? [...tokens, ...page.tokens] : page.tokens,
          ...(more ? {} : { staged: page.staged, stagedUnsearched: page.staged_unsearched }),
          total: page.total,
          next: page.next,
          unindexed: page.unindexed,
          loading: false,
          problem: null,
          problemField: null,
        })),
      loadFailed: (problem, problemField = null) => set({ problem, problemField, loading: false, tokens: [], staged: [], total: null, next: null }),
      reread: (found, gone, total) =>
        set(({ tokens, next }) => {
          const byId = new Map(found.map((token) => [token.id, token]));
          const kept = tokens.filter((token) => !gone.includes(token.id)).map((token) => byId.get(token.id) ?? token);
          const listed = new Set(kept.map((token) => token.id));
          const joining = found.filter((token) => !listed.has(token.id) && joinsListed(token, kept, next !== null));
          return { tokens: [...kept, ...joining].sort(newestFirst), total };
        }),
      restaged: (page) => set({ staged: page.staged, stagedUnsearched: page.staged_unsearched, total: page.total }),
      show: (panel, notice = null) => set({ panel, notice }),
      showList: (listTab) => set({ listTab }),
      transactionsListed: (transactions) => set({ transactions }),
      heard: (changes, more, transactions) =>
        set(({ pending }) => {
          const ids = new Map(pending.ids);
          for (const { id, change } of changes) ids.set(id, change);
          const reload = pending.reload || more || ids.size > MAX_PENDING;
          if (reload) ids.clear();
          return { pending: { ids, reload, transactions: pending.transactions || transactions }, heardAt: Date.now() };
        }),
      takePending: () => {
        const { pending } = get();
        set({ pending: NOTHING_PENDING });
        return pending;
      },
    }),
    {
      name: 'tokenbench.tokens',
      storage: createJSONStorage(() => window.localStorage),
      // A query holding a card number or another long run of digits is the user's to type, not the profile's to keep.
      partialize: ({ applicationId, filters }) => ({ applicationId, filters: LONG_DIGIT_RUN.test(filters.query) ? { ...filters, query: '' } : filters }),
    },
  ),
);
