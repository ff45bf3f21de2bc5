import type { HistoryEntry, SentHistoryEntry } from '../../../shared/workbench/history-contract';
import type { HistoryFilter } from '../../../shared/workbench/history-filter';
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
  /** The first page of history under the list's filter, handed to `show` with that filter. */
  const firstPage = (show: (page: HistoryEntry[], filter: HistoryFilter) => void) => {
    const { listed } = useHistoryStore.getState();
    return api.listHistory({ limit: PAGE_SIZE, filter: listed }).then((page) => show(page, listed));
  };
  const failed = (error: unknown) => engine.failed(messageOf(error));
  const reload = () => Promise.all([firstPage(history.mergePage), loadTransactions(api)]).catch(failed);
  const rereadHistory = () => firstPage(history.reread).catch(failed);
  // One read at a time: a burst leaves entries out of every batch, and the read after the one under way covers them all.
  let refilling = false;
  let refillAgain = false;
  const refillHistory = (): void => {
    if (refilling) {
      refillAgain = true;
      return;
    }
    refilling = true;
    void firstPage(history.refilled)
      .catch(failed)
      .finally(() => {
        refilling = false;
        if (!refillAgain) return;
        refillAgain = false;
        refillHistory();
      });
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
      const leftOut = event.entriesLeftOut > 0;
      // Cleared, or trimmed to a new retention: the list is read again rather than merged into.
      if (event.historyReset) void rereadHistory();
      else {
        history.mergeLive(event.entries);
        // The batch's older entries were left out (a burst): merged alone, its newest would sit above a hole.
        if (leftOut) refillHistory();
      }
      // An entry left out of the batch may have been any of the changes below: the lists already read are read again.
      const heard = (test: (entry: SentHistoryEntry) => boolean) => leftOut || event.entries.some(test);
      // The engine sends no event of its own for reactors: a write to /reactors that succeeded, by any client or by
      // this workbench, is heard as its history entry, and a list on show reads itself again.
      if (useReactorsStore.getState().value !== null && heard(changesReactors)) void useReactorsStore.refresh(api);
      // A delivery queued or attempted may have disabled its webhook; a client's change to /webhooks is heard as its entry.
      if (useWebhooksStore.getState().value !== null && (event.webhooks.length > 0 || heard((entry) => entry.path.startsWith('/webhooks')))) {
        void useWebhooksStore.refresh(api);
      }
      if (event.webhooks.length > 0) useWebhookDeliveriesHeard.getState().heard(event.webhooks);
      transactions.merge(event.transactions, event.transactionCounts);
      // A wipe, here or on another replica, names no transaction: the list is read again.
      if (event.transactionsReset) void loadTransactions(api).catch(failed);
      if (event.collections) {
        useCollectionsStore.getState().loaded(event.collections);
        // The environments live in the same folder: a change to it (a pull, another folder chosen) may be theirs.
        void useEnvironmentsStore.refresh(api);
      }
      // Keys and sessions change through /keys and /sessions (a client's or Settings'): their lists are read again,
      // after a batch that left entries out only once read.
      if (event.entries.some((entry) => entry.path.startsWith('/keys')) || (leftOut && useClientKeysStore.getState().value !== null)) {
        void useClientKeysStore.refresh(api);
      }
      if (event.entries.some((entry) => entry.path.startsWith('/sessions')) || (leftOut && useSessionsStore.getState().value !== null)) {
        void useSessionsStore.refresh(api);
      }
      const { changes, more } = event.tokens;
      if (changes.length > 0 || more || event.transactions.length > 0) useTokensStore.getState().heard(changes, more, event.transactions.length > 0);
      // A transaction's end may consume or give back the intents it held.
      if (event.tokenIntents || event.transactions.length > 0) rereadIntents();
    }
  });
}
