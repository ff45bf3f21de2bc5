import { useHistoryStore } from '../../state/history-store';

const statusClass = (status: number) => (status >= 500 ? 'status-error' : status >= 400 ? 'status-warn' : 'status-ok');

/** The latest requests the engine handled, newest first, updated live. */
export function HistoryPanel() {
  const entries = useHistoryStore((state) => state.entries);
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
              <tr key={entry.id} data-testid="history-row">
                <td>{new Date(entry.at).toLocaleTimeString()}</td>
                <td data-testid="history-method">{entry.method}</td>
                <td className="path" data-testid="history-path">
                  {entry.path}
                </td>
                <td className={statusClass(entry.status)} data-testid="history-status">
                  {entry.status}
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
