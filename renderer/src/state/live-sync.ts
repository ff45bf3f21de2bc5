import type { SentHistoryEntry } from '../../../shared/workbench/history-contract';
import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useEngineStore } from './engine-store';
import { useClientKeysStore, useSessionsStore } from './client-access-stores';
import { useCollectionsStore } from './collections-store';
import { useEnvironmentsStore } from './environments-store';
import { PAGE_SIZE, useHistoryStore } from './history-store';
import { useReactorsStore } from './reactors-store';
import { useTokenIntentsStore } from './token-intents-store';
import { useTokensStore } from './tokens-store';
import { loadTransactions, useTransactionsStore } from './transactions-store';
import { useWebhookDeliveriesHeard, useWebhooksStore } from './webhooks-store';

/** Whether a history entry is a change to the reactors that succeeded (not a react, which changes none). */
const changesReactors = (entry: SentHistoryEntry) =>
  entry.method !== 'GET' && entry.status < 300 && /^\/reactors(\/[^/?]+)?\/?(\?|$)/.test(entry.path);

/**
 * Feeds the stores from the engine. The status comes first, so a bad session or a stopped engine fails here with a
 * clear message; then the live feed, and on every (re)connect the latest page of history and of transactions, each
 * under its list's filter (live changes merge into them by id, held to the same filter); token changes go to the
 * Tokens page's store, token intent changes read its intents again. Returns the unsubscribe function.
 */
export async function startLiveSync(api: WorkbenchApi): Promise<() => void> {
  const engine = useEngineStore.getState();
  const history = useHistoryStore.getState();
  try {
    engine.connected(await api.getStatus());
  } catch (error) {
    engine.failed(messageOf(error));
    return () => undefined;
  }
  const transactions = useTransactionsStore.getState();
  const reload = () => {
    const { listed } = useHistoryStore.getState();
    return Promise.all([api.listHistory({ limit: PAGE_SIZE, filter: listed }).then((page) => history.mergePage(page, listed)), loadTransactions(api)]).catch(
      (error: unknown) => engine.failed(messageOf(error)),
    );
  };
  const rereadHistory = () => {
    const { listed } = useHistoryStore.getState();
    return api.listHistory({ limit: PAGE_SIZE, filter: listed }).then(
      (page) => history.reread(page, listed),
      (error) => engine.failed(messageOf(error)),
    );
  };
  // Only once the Tokens page has read them: with the page never opened, intents cost nothing.
  const rereadIntents = () => {
    if (useTokenIntentsStore.getState().value) void useTokenIntentsStore.refresh(api);
  };
  let connectedBefore = false;
  return api.live((event) => {
    if (event.type === 'lost') return engine.lost(event.retrying);
    engine.connected(event.status);
    if (event.type === 'connected') {
      void reload();
      // Token changes made while the connection was down were never heard: the list reads itself again.
      if (connectedBefore) {
        useTokensStore.getState().heard([], true, true);
        rereadIntents();
      }
      connectedBefore = true;
    } else {
      // Cleared, or trimmed to a new retention: the list is read again rather than merged into.
      if (event.historyReset) void rereadHistory();
      else history.mergeLive(event.entries);
      // The engine sends no event of its own for reactors: a write to /reactors that succeeded, by any client or by
      // this workbench, is heard as its history entry, and a list on show reads itself again.
      if (useReactorsStore.getState().value !== null && event.entries.some(changesReactors)) void useReactorsStore.refresh(api);
      // A delivery queued or attempted may have disabled its webhook; a client's change to /webhooks is heard as its entry.
      if (useWebhooksStore.getState().value !== null && (event.webhooks.length > 0 || event.entries.some((entry) => entry.path.startsWith('/webhooks')))) {
        void useWebhooksStore.refresh(api);
      }
      if (event.webhooks.length > 0) useWebhookDeliveriesHeard.getState().heard(event.webhooks);
      transactions.merge(event.transactions, event.transactionCounts);
      // A wipe, here or on another replica, names no transaction: the list is read again.
      if (event.transactionsReset) void loadTransactions(api).catch((error: unknown) => engine.failed(messageOf(error)));
      if (event.collections) {
        useCollectionsStore.getState().loaded(event.collections);
        // The environments live in the same folder: a change to it (a pull, another folder chosen) may be theirs.
        void useEnvironmentsStore.refresh(api);
      }
      // Keys and sessions change through /keys and /sessions (a client's or Settings'): their lists are read again.
      if (event.entries.some((entry) => entry.path.startsWith('/keys'))) void useClientKeysStore.refresh(api);
      if (event.entries.some((entry) => entry.path.startsWith('/sessions'))) void useSessionsStore.refresh(api);
      const { changes, more } = event.tokens;
      if (changes.length > 0 || more || event.transactions.length > 0) useTokensStore.getState().heard(changes, more, event.transactions.length > 0);
      // A transaction's end may consume or give back the intents it held.
      if (event.tokenIntents || event.transactions.length > 0) rereadIntents();
    }
  });
}
