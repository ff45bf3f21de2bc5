import { useEffect, useRef } from 'react';
import { usePageQuery } from '../../app/route';
import { SplitPane } from '../../components/SplitPane';
import { useHistoryStore } from '../../state/history-store';
import { EntryPanel } from './EntryPanel';
import { HistoryList } from './HistoryList';
import './history.css';

/** Opened from another page for one request (`#/history?trace=…`): list by that trace id and select the request once it is listed. */
function useRequestedTrace(): string | null {
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
  return trace;
}

/** Every request the engine handled, beside the one selected. */
export function HistoryPage() {
  const trace = useRequestedTrace();
  return (
    <SplitPane
      label="Resize the request list"
      storageKey="tokenbench.history.split"
      initial={0.5}
      start={<HistoryList key={trace ?? ''} initialText={trace ?? ''} />}
      end={<EntryPanel />}
    />
  );
}
