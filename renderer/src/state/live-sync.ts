import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useEngineStore } from './engine-store';
import { PAGE_SIZE, useHistoryStore } from './history-store';
import { useTransactionsStore } from './transactions-store';

/**
 * Feeds the stores from the engine. The status comes first, so a bad session or a stopped engine fails here with a
 * clear message; then the live feed, and on every (re)connect the latest page of history and every transaction (merged
 * by id, so what arrives live meanwhile is neither lost nor doubled). Returns the unsubscribe function.
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
  const reload = () =>
    Promise.all([api.listHistory({ limit: PAGE_SIZE }), api.listTransactions()]).then(
      ([page, listed]) => {
        history.merge(page, true);
        transactions.loaded(listed);
      },
      (error) => engine.failed(messageOf(error)),
    );
  return api.live((event) => {
    if (event.type === 'lost') return engine.lost(event.retrying);
    engine.connected(event.status);
    if (event.type === 'connected') return void reload();
    history.merge(event.entries);
    transactions.merge(event.transactions);
  });
}
