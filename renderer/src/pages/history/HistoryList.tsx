import { useRef } from 'react';
import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { MAX_LISTED, PAGE_SIZE, useHistoryStore } from '../../state/history-store';
import { SOURCE_LABELS, statusSourceOf } from '../../components/answer-source';
import type { HistoryFilter } from '../../../../shared/workbench/history-filter';
import { filtersAnything } from '../../../../shared/workbench/history-match';
import { bringIntoView } from '../../components/bring-into-view';
import { ENTRY_PANEL } from './EntryPanel';
import { ExportHar } from './ExportHar';
import { HistoryFilters } from './HistoryFilters';
import { Alert } from '../../components/Alert';
import { senderOf } from './sender';
import { useKeptScroll } from './kept-scroll';
import { useApplicationName } from '../../state/applications-store';

const statusClass = (status: number) => (status >= 500 ? 'status-error' : status >= 400 ? 'status-warn' : 'status-ok');

/** For a proxied request, who chose its status: the destination, or the proxy itself. */
function SourceBadge({ entry }: { entry: HistoryEntry }) {
  const source = statusSourceOf(entry);
  if (source === 'api') return null;
  return (
    <span className={`badge badge-${source}`} data-testid="history-source">
      {SOURCE_LABELS[source]}
    </span>
  );
}

function WarningBadge({ entry }: { entry: HistoryEntry }) {
  const warnings = entry.proxy?.warnings ?? [];
  if (warnings.length === 0) return null;
  return (
    <span className="badge badge-warning" title={warnings.join('\n')} data-testid="history-warnings">
      <span aria-hidden="true">⚠ </span>
      {warnings.length}
      <span className="visually-hidden"> {warnings.length === 1 ? 'warning' : 'warnings'}</span>
    </span>
  );
}

/** Who sent the request, under its path, with what a workbench change or reveal did: the path keeps the width. */
function SenderLine({ sender, summary }: { sender: string; summary: string | undefined }) {
  const line = summary ? `${sender} · ${summary}` : sender;
  return (
    <div className="sender" title={`Sent by ${line}`} data-testid="history-sender">
      <span className="visually-hidden">Sent by </span>
      {line}
    </div>
  );
}

/** Pages back through the engine's history, from the oldest entry listed; says why when it cannot. */
function LoadOlder() {
  const api = useWorkbenchApi();
  const entries = useHistoryStore((state) => state.entries);
  const reachedOldest = useHistoryStore((state) => state.reachedOldest);
  const mergePage = useHistoryStore((state) => state.mergePage);
  const { busy, problem, run } = useEngineCall();
  if (entries.length === 0 || reachedOldest) return null;
  if (entries.length >= MAX_LISTED) {
    return (
      <p className="muted" data-testid="history-full">
        The list keeps the latest {MAX_LISTED} requests; the engine keeps older ones in its history file.
      </p>
    );
  }
  const loadOlder = () =>
    run(async () => {
      const { listed } = useHistoryStore.getState();
      mergePage(await api.listHistory({ limit: PAGE_SIZE, before: entries[entries.length - 1].id, filter: listed }), listed);
    });
  return (
    <div className="load-older">
      <button type="button" onClick={loadOlder} disabled={busy} data-testid="history-load-older">
        Load older requests
      </button>
      <Alert message={problem} />
    </div>
  );
}

/** The requests the engine handled, newest first, updated live and filtered by the engine; choosing one shows it beside. */
export function HistoryList({ onFilter, loading }: { onFilter: (filter: HistoryFilter) => void; loading: boolean }) {
  const entries = useHistoryStore((state) => state.entries);
  const filter = useHistoryStore((state) => state.filter);
  const selectedId = useHistoryStore((state) => state.selected?.id);
  const select = useHistoryStore((state) => state.select);
  const applicationName = useApplicationName();
  // A window that stacks the panels has the detail under the list: it comes up, as it would open beside the list.
  const show = (entry: HistoryEntry) => {
    select(entry);
    requestAnimationFrame(() => bringIntoView(document.getElementById(ENTRY_PANEL)));
  };
  const place = useRef<HTMLElement>(null);
  useKeptScroll(place, 'list');
  return (
    <section className="panel" aria-labelledby="history-title" data-testid="history-panel" aria-busy={loading} ref={place}>
      <div className="panel-head">
        <h2 id="history-title">Requests</h2>
        <ExportHar request={{ filter }} label={filtersAnything(filter) ? 'Export the matching requests as HAR' : 'Export as HAR'} />
      </div>
      <HistoryFilters filter={filter} onChange={onFilter} />
      {entries.length === 0 ? (
        <p className="muted" data-testid={filtersAnything(filter) ? 'history-no-match' : 'history-empty'}>
          {loading ? 'Looking…' : filtersAnything(filter) ? 'No request the engine keeps matches.' : 'No requests yet. Call the API and they appear here.'}
        </p>
      ) : (
        <table className="data-table history">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Method</th>
              <th scope="col">Path and sender</th>
              <th scope="col">Status</th>
              <th scope="col" className="number">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr
                key={entry.id}
                data-testid="history-row"
                data-trace={entry.trace_id ?? undefined}
                data-entry-id={entry.id}
                aria-selected={entry.id === selectedId}
                className={entry.id === selectedId ? 'selected' : undefined}
              >
                <td className="time">{new Date(entry.at).toLocaleTimeString()}</td>
                <td data-testid="history-method">{entry.method}</td>
                <td className="path">
                  <div className="path-line">
                    <button type="button" className="link" title={entry.path} onClick={() => show(entry)} data-testid="history-path">
                      {entry.path}
                    </button>
                    <WarningBadge entry={entry} />
                  </div>
                  <SenderLine sender={senderOf(entry, applicationName)} summary={entry.change?.summary ?? entry.reveal?.summary} />
                </td>
                <td className="status">
                  <span className={statusClass(entry.status)} data-testid="history-status">
                    {entry.status}
                  </span>{' '}
                  <SourceBadge entry={entry} />
                </td>
                <td className="number">{entry.duration_ms.toFixed(1)} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadOlder />
    </section>
  );
}
