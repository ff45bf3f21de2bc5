import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import type { HistoryFilter } from '../../../../shared/workbench/history-filter';
import { filtersAnything } from '../../../../shared/workbench/history-match';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { SplitPane } from '../../components/SplitPane';
import { useApplicationsStore } from '../../state/applications-store';
import { useEngineStore } from '../../state/engine-store';
import { listHistoryFor, useHistoryStore } from '../../state/history-store';
import { replacePageQuery, usePageQuery } from '../../state/route';
import { EntryPanel } from './EntryPanel';
import { filterFromQuery, queryOfFilter, sameFilter } from './history-address';
import { HistoryList } from './HistoryList';
import { useHistoryKeys } from './history-keys';
import './history.css';

/**
 * The filter on screen lives in the history store, which outlives the page: coming back to History shows it, and the
 * list it had, at once. The address names it too, so a reload or a shared link keeps it: an address that names a
 * filter puts it on screen, and one that names none (the navigation's link) is given the filter on screen. Returns the
 * filter's setter and whether a list is on its way.
 */
function usePlacedFilter(): { setFilter: (filter: HistoryFilter) => void; loading: boolean } {
  const api = useWorkbenchApi();
  const query = usePageQuery();
  const live = useEngineStore((state) => state.connection === 'live');
  const filter = useHistoryStore((state) => state.filter);
  const listed = useHistoryStore((state) => state.listed);
  // Before the page paints, so no other filter ever shows.
  useLayoutEffect(() => {
    const history = useHistoryStore.getState();
    if (query.toString() === '') {
      if (filtersAnything(history.filter)) replacePageQuery('history', queryOfFilter(history.filter));
      return;
    }
    const asked = filterFromQuery(query);
    if (!sameFilter(asked, history.filter)) history.ask(asked);
  }, [query]);
  useEffect(() => {
    const history = useHistoryStore.getState();
    if (live && !(sameFilter(filter, history.listed) && history.entries.length > 0)) void listHistoryFor(api, filter);
  }, [api, filter, live]);
  const setFilter = useCallback((next: HistoryFilter) => {
    useHistoryStore.getState().ask(next);
    replacePageQuery('history', queryOfFilter(next));
  }, []);
  // Until the engine answers, the list shows what the filter before listed.
  return { setFilter, loading: !sameFilter(filter, listed) };
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
  useApplicationsStore.useRefreshed();
  useRequestedTrace();
  useHistoryKeys();
  const { setFilter, loading } = usePlacedFilter();
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
