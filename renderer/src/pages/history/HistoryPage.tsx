import { useCallback, useEffect, useRef } from 'react';
import type { HistoryFilter } from '../../../../shared/workbench/history-filter';
import { messageOf } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { SplitPane } from '../../components/SplitPane';
import { useApplicationList } from '../../state/applications-store';
import { useEngineStore } from '../../state/engine-store';
import { PAGE_SIZE, useHistoryStore } from '../../state/history-store';
import { replacePageQuery, usePageQuery } from '../../state/route';
import { EntryPanel } from './EntryPanel';
import { filterFromQuery, queryOfFilter, sameFilter } from './history-address';
import { HistoryList } from './HistoryList';
import { useHistoryKeys } from './history-keys';
import './history.css';

/**
 * The filter lives in the address (a reload or a shared link keeps it): the page lists what the address asks for,
 * and a change of filter is a change of address. Returns the filter's setter and whether a list is on its way.
 */
function useAddressedFilter(): { setFilter: (filter: HistoryFilter) => void; loading: boolean } {
  const api = useWorkbenchApi();
  const query = usePageQuery();
  const live = useEngineStore((state) => state.connection === 'live');
  const shown = useHistoryStore((state) => state.filter);
  const asked = filterFromQuery(query);
  const latest = useRef(0);
  useEffect(() => {
    const filter = filterFromQuery(query);
    const history = useHistoryStore.getState();
    if (!live || (sameFilter(filter, history.filter) && history.entries.length > 0)) return;
    const request = ++latest.current;
    api.listHistory({ limit: PAGE_SIZE, filter }).then(
      (page) => {
        if (request === latest.current) useHistoryStore.getState().replace(filter, page);
      },
      (error: unknown) => useEngineStore.getState().failed(messageOf(error)),
    );
  }, [api, query, live]);
  const setFilter = useCallback((filter: HistoryFilter) => replacePageQuery('history', queryOfFilter(filter)), []);
  // Until the engine answers, the list shows the filter it had.
  return { setFilter, loading: !sameFilter(asked, shown) };
}

/** Opened from another page for one request (`#/history?trace=…`): select it once it is listed. */
function useRequestedTrace(): void {
  const trace = usePageQuery().get('trace');
  const entries = useHistoryStore((state) => state.entries);
  const select = useHistoryStore((state) => state.select);
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!trace || shown.current === trace) return;
    const entry = entries.find((candidate) => candidate.trace_id === trace);
    if (!entry) return;
    shown.current = trace;
    select(entry);
  }, [trace, entries, select]);
}

/** Every request the engine handled, beside the one selected. */
export function HistoryPage() {
  useApplicationList();
  useRequestedTrace();
  useHistoryKeys();
  const { setFilter, loading } = useAddressedFilter();
  return (
    <SplitPane
      label="Resize the request list"
      storageKey="tokenbench.history.split"
      initial={0.5}
      start={<HistoryList onFilter={setFilter} loading={loading} />}
      end={<EntryPanel />}
    />
  );
}
