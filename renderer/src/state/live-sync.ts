import type { WorkbenchApi } from '../../../shared/workbench/methods';
import { messageOf } from '../api/engine-call';
import { useEngineStore } from './engine-store';
import { useCollectionsStore } from './collections-store';
import { PAGE_SIZE, useHistoryStore } from './history-store';

/**
 * Feeds the stores from the engine. The status comes first, so a bad session or a stopped engine fails here with a
 * clear message; then the live feed, and on every (re)connect the latest page of history under the list's filter
 * (merged by id, so the entries that arrive live meanwhile are neither lost nor doubled). Returns the unsubscribe
 * function.
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
  const reload = () => {
    const { filter } = useHistoryStore.getState();
    return api.listHistory({ limit: PAGE_SIZE, filter }).then(
      (page) => history.mergePage(page, filter),
      (error) => engine.failed(messageOf(error)),
    );
  };
  return api.live((event) => {
    if (event.type === 'lost') return engine.lost(event.retrying);
    engine.connected(event.status);
    if (event.type === 'connected') void reload();
    else {
      history.mergeLive(event.entries);
      if (event.collections) useCollectionsStore.getState().loaded(event.collections);
    }
  });
}
