import type { HistoryEntry } from '../../../../shared/workbench/contract';
import { useHistoryStore } from '../../state/history-store';
import { SOURCE_LABELS } from '../entry/answer-source';

const statusClass = (status: number) => (status >= 500 ? 'status-error' : status >= 400 ? 'status-warn' : 'status-ok');

/** For a proxied request, who chose its status: the destination, or the proxy itself. */
function SourceBadge({ entry }: { entry: HistoryEntry }) {
  if (entry.kind !== 'proxy') return null;
  const source = entry.proxy?.status_source === 'destination' ? 'destination' : 'proxy';
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
      {warnings.length} {warnings.length === 1 ? 'warning' : 'warnings'}
    </span>
  );
}

/** The latest requests the engine handled, newest first, updated live; choosing one shows it in the request panel. */
export function HistoryPanel() {
  const entries = useHistoryStore((state) => state.entries);
  const selectedId = useHistoryStore((state) => state.selected?.id);
  const select = useHistoryStore((state) => state.select);
  return (
    <section className="panel" aria-labelledby="history-title" data-testid="history-panel">
      <h2 id="history-title">Latest requests</h2>
      {entries.length === 0 ? (
        <p className="muted" data-testid="history-empty">
          No requests yet. Call the API and they appear here.
        </p>
      ) : (
        <table className="history">
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
            {entries.map((entry) => (
              <tr
                key={entry.id}
                data-testid="history-row"
                data-trace={entry.trace_id ?? undefined}
                aria-selected={entry.id === selectedId}
                className={entry.id === selectedId ? 'selected' : undefined}
              >
                <td>{new Date(entry.at).toLocaleTimeString()}</td>
                <td data-testid="history-method">{entry.method}</td>
                <td className="path">
                  <button type="button" className="link" onClick={() => select(entry)} data-testid="history-path">
                    {entry.path}
                  </button>
                  <WarningBadge entry={entry} />
                </td>
                <td>
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
    </section>
  );
}
