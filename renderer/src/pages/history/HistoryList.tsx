import { useMemo, useState } from 'react';
import type { HistoryEntry } from '../../../../shared/workbench/contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { MAX_LISTED, PAGE_SIZE, useHistoryStore } from '../../state/history-store';
import { SOURCE_LABELS, statusSourceOf } from '../../components/answer-source';
import { filterHistory, HISTORY_VIEWS, type HistoryFilter, type HistoryView } from './history-filter';
import { Alert } from '../../components/Alert';

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

/** Pages back through the engine's history, from the oldest entry listed; says why when it cannot. */
function LoadOlder() {
  const api = useWorkbenchApi();
  const entries = useHistoryStore((state) => state.entries);
  const reachedOldest = useHistoryStore((state) => state.reachedOldest);
  const merge = useHistoryStore((state) => state.merge);
  const { busy, problem, run } = useEngineCall();
  if (entries.length === 0 || reachedOldest) return null;
  if (entries.length >= MAX_LISTED) {
    return (
      <p className="muted" data-testid="history-full">
        The list keeps the latest {MAX_LISTED} requests; the engine keeps older ones in its history file.
      </p>
    );
  }
  const loadOlder = () => run(async () => merge(await api.listHistory({ limit: PAGE_SIZE, before: entries[entries.length - 1].id }), true));
  return (
    <div className="load-older">
      <button type="button" onClick={loadOlder} disabled={busy} data-testid="history-load-older">
        Load older requests
      </button>
      <Alert message={problem} />
    </div>
  );
}

/** The requests the engine handled, newest first, updated live and filtered; choosing one shows it in the request panel. */
export function HistoryList({ initialText = '' }: { initialText?: string }) {
  const entries = useHistoryStore((state) => state.entries);
  const selectedId = useHistoryStore((state) => state.selected?.id);
  const select = useHistoryStore((state) => state.select);
  const [filter, setFilter] = useState<HistoryFilter>({ view: 'all', text: initialText });
  const shown = useMemo(() => filterHistory(entries, filter), [entries, filter]);
  const filtered = filter.view !== 'all' || filter.text.trim() !== '';
  return (
    <section className="panel" aria-labelledby="history-title" data-testid="history-panel">
      <h2 id="history-title">Requests</h2>
      <div className="history-filter">
        <select
          aria-label="Show"
          value={filter.view}
          onChange={(event) => setFilter({ ...filter, view: event.target.value as HistoryView })}
          data-testid="history-view"
        >
          {Object.entries(HISTORY_VIEWS).map(([view, { label }]) => (
            <option key={view} value={view}>
              {label}
            </option>
          ))}
        </select>
        <input
          type="search"
          placeholder="Path, status or trace id"
          aria-label="Search the requests"
          value={filter.text}
          onChange={(event) => setFilter({ ...filter, text: event.target.value })}
          data-testid="history-search"
        />
        {filtered && (
          <span className="muted" data-testid="history-count">
            {shown.length} of {entries.length} listed
          </span>
        )}
      </div>
      {entries.length === 0 ? (
        <p className="muted" data-testid="history-empty">
          No requests yet. Call the API and they appear here.
        </p>
      ) : shown.length === 0 ? (
        <p className="muted" data-testid="history-no-match">
          No listed request matches.
        </p>
      ) : (
        <table className="data-table history">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Method</th>
              <th scope="col">Path</th>
              <th scope="col">Status</th>
              <th scope="col" className="number">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((entry) => (
              <tr
                key={entry.id}
                data-testid="history-row"
                data-trace={entry.trace_id ?? undefined}
                aria-selected={entry.id === selectedId}
                className={entry.id === selectedId ? 'selected' : undefined}
              >
                <td className="time">{new Date(entry.at).toLocaleTimeString()}</td>
                <td data-testid="history-method">{entry.method}</td>
                <td className="path">
                  <div className="path-line">
                    <button type="button" className="link" title={entry.path} onClick={() => select(entry)} data-testid="history-path">
                      {entry.path}
                    </button>
                    <WarningBadge entry={entry} />
                  </div>
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
