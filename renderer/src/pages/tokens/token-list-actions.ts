import { useEffect } from 'react';
import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import { TRANSACTION_PAGE_MAX } from '../../../../shared/workbench/transaction-contract';
import type { TokenSearch } from '../../../../shared/workbench/token-contract';
import { WorkbenchError } from '../../../../shared/workbench/transport';
import { messageOf } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { newestFirst } from '../../state/newest-first';
import { useTokensStore, type TokenFilters } from '../../state/tokens-store';

/** Tokens per page: a few screens of rows, read as the list scrolls towards its end. */
export const TOKENS_PAGE = 100;
/** Changes are applied at most this often, so a load test with the page open costs the engine a re-read a second. */
const APPLY_EVERY_MS = 1000;

/** The application the page acts as, as the user chose it or the usual one. */
export function actingApplication() {
  return applicationToUse(useApplicationsStore.getState().value, useTokensStore.getState().applicationId);
}

function searchOf(applicationId: string, filters: TokenFilters): TokenSearch {
  return {
    application_id: applicationId,
    query: filters.query,
    ...(filters.type && { type: filters.type }),
    ...(filters.container && { container: filters.container }),
    ...(filters.expiry && { expiry: filters.expiry }),
    ...(filters.createdIn && { transaction_id: filters.createdIn }),
  };
}

/** The open transaction the page's writes go into, if the one picked is still open. */
export function writingTransaction(): string | undefined {
  const { transactionId, transactions } = useTokensStore.getState();
  return transactions.find((transaction) => transaction.id === transactionId && transaction.state === 'open')?.id;
}

/** The request of the list as it stands, or null before there is an application to act as. */
function currentSearch(): TokenSearch | null {
  const application = actingApplication();
  return application && searchOf(application.id, useTokensStore.getState().filters);
}

/** Shows why the list could not be read, marking the filter the engine named (an invalid query or container). */
function failed(error: unknown): void {
  const fields = error instanceof WorkbenchError ? Object.keys(error.problem.errors ?? {}) : [];
  useTokensStore.getState().loadFailed(messageOf(error), fields.length === 1 ? fields[0] : null);
}

/** Reads the list's first page again (filters, application or a burst of changes changed); the engine's error is shown in place. */
export async function loadTokens(api: WorkbenchApi): Promise<void> {
  const search = currentSearch();
  if (!search) return;
  const store = useTokensStore.getState();
  store.startLoading();
  try {
    const page = await api.searchTokens({ ...search, limit: TOKENS_PAGE });
    // A newer search may have started meanwhile: only the answer to the one still asked counts.
    if (JSON.stringify(currentSearch()) === JSON.stringify(search)) store.loaded(page, false);
  } catch (error) {
    failed(error);
  }
}

/** Reads the next page as the list scrolls to its end. */
export async function loadMoreTokens(api: WorkbenchApi): Promise<void> {
  const search = currentSearch();
  const { next, loading } = useTokensStore.getState();
  if (!search || !next || loading) return;
  useTokensStore.getState().startLoading();
  try {
    const page = await api.searchTokens({ ...search, cursor: next, limit: TOKENS_PAGE });
    if (useTokensStore.getState().next === next) useTokensStore.getState().loaded(page, true);
  } catch (error) {
    failed(error);
  }
}

/** The latest transactions of any state the "Created in" filter offers; the open ones to write in come in full. */
const LATEST_TRANSACTIONS = 100;

/**
 * The transactions the page offers, newest first: the open ones to write in (up to the most a page holds), and the
 * latest of any state to find the tokens one created.
 */
export async function listTransactions(api: WorkbenchApi): Promise<void> {
  const [open, latest] = await Promise.all([
    api.listTransactions({ state: 'open', limit: TRANSACTION_PAGE_MAX }),
    api.listTransactions({ limit: LATEST_TRANSACTIONS }),
  ]);
  const byId = new Map([...latest.transactions, ...open.transactions].map((transaction) => [transaction.id, transaction]));
  useTokensStore.getState().transactionsListed([...byId.values()].sort(newestFirst));
}

/**
 * Applies the token changes heard on the live road: deleted tokens leave the list, created and changed ones are read
 * again through the same search (so a token that no longer matches leaves too); a burst, or a reconnect, reads the
 * list again; a transaction's change reads what open transactions stage.
 */
async function applyPending(api: WorkbenchApi): Promise<void> {
  const search = currentSearch();
  if (!search) return;
  const pending = useTokensStore.getState().takePending();
  if (pending.transactions) await listTransactions(api);
  if (pending.reload) return loadTokens(api);
  const changed = [...pending.ids].filter(([, change]) => change !== 'deleted').map(([id]) => id);
  const deleted = [...pending.ids].filter(([, change]) => change === 'deleted').map(([id]) => id);
  if (changed.length === 0 && deleted.length === 0) {
    if (pending.transactions) useTokensStore.getState().restaged(await api.searchTokens({ ...search, limit: 1 }));
    return;
  }
  const page = changed.length > 0 ? await api.searchTokens({ ...search, ids: changed, limit: changed.length }) : null;
  const total = page?.total ?? (await api.searchTokens({ ...search, limit: 1 })).total;
  const found = page?.tokens ?? [];
  const gone = [...deleted, ...changed.filter((id) => !found.some((token) => token.id === id))];
  useTokensStore.getState().reread(found, gone, total);
  if (pending.transactions) useTokensStore.getState().restaged(await api.searchTokens({ ...search, limit: 1 }));
}

const hasPending = () => {
  const { pending } = useTokensStore.getState();
  return pending.reload || pending.transactions || pending.ids.size > 0;
};

/**
 * The list while the page is open: read on arrival and whenever the application or the filters change, then kept
 * current from the live road: changes are applied at most once a second, one re-read at a time, however many come.
 */
export function useTokenList(): void {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value);
  const applicationId = useTokensStore((state) => state.applicationId);
  const filters = useTokensStore((state) => state.filters);
  const acting = applicationToUse(applications, applicationId)?.id;

  useEffect(() => {
    if (!acting) return;
    // What was heard before this read is in it.
    useTokensStore.getState().takePending();
    void loadTokens(api);
  }, [api, acting, filters]);

  useEffect(() => {
    void listTransactions(api).catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | null = null;
    let stopped = false;
    const run = async () => {
      try {
        await applyPending(api);
      } catch (error) {
        if (!stopped) failed(error);
      }
      timer = null;
      if (hasPending()) schedule();
    };
    const schedule = () => {
      if (timer === null && !stopped) timer = setTimeout(() => void run(), APPLY_EVERY_MS);
    };
    const unsubscribe = useTokensStore.subscribe((state, previous) => {
      if (state.heardAt !== previous.heardAt) schedule();
    });
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      unsubscribe();
    };
  }, [api]);
}
