import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useEngineStore } from './engine-store';
import { useCollectionsStore } from './collections-store';
import { PAGE_SIZE, useHistoryStore } from './history-store';
import { useTokensStore } from './tokens-store';
import { useTransactionsStore } from './transactions-store';

/**
 * Feeds the stores from the engine. The status comes first, so a bad session or a stopped engine fails here with a
 * clear message; then the live feed, and on every (re)connect the latest page of history under the list's filter and
 * every transaction (merged by id, so what arrives live meanwhile is neither lost nor doubled); token changes go to the
 * Tokens page's store. Returns the unsubscribe function.
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
    const { filter } = useHistoryStore.getState();
    return Promise.all([api.listHistory({ limit: PAGE_SIZE, filter }), api.listTransactions()]).then(
      ([page, listed]) => {
        history.mergePage(page, filter);
        transactions.loaded(listed);
      },
      (error) => engine.failed(messageOf(error)),
    );
  };
  let connectedBefore = false;
  return api.live((event) => {
    if (event.type === 'lost') return engine.lost(event.retrying);
    engine.connected(event.status);
    if (event.type === 'connected') {
      void reload();
      // Token changes made while the connection was down were never heard: the list reads itself again.
      if (connectedBefore) useTokensStore.getState().heard([], true, true);
      connectedBefore = true;
    } else {
      history.mergeLive(event.entries);
      transactions.merge(event.transactions);
      if (event.collections) useCollectionsStore.getState().loaded(event.collections);
      const { changes, more } = event.tokens;
      if (changes.length > 0 || more || event.transactions.length > 0) useTokensStore.getState().heard(changes, more, event.transactions.length > 0);
    }
  });
}
