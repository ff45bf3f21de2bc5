import { EntryPanel } from '../panels/entry/EntryPanel';
import { HistoryPanel } from '../panels/history/HistoryPanel';
import { StatusPanel } from '../panels/status/StatusPanel';
import { useEngineStore } from '../state/engine-store';

const CONNECTION_LABELS = { connecting: 'connecting', live: 'live', lost: 'disconnected', failed: 'not connected' } as const;

/** The shell: header, connection state, and the panels. */
export function App() {
  const connection = useEngineStore((state) => state.connection);
  const problem = useEngineStore((state) => state.problem);
  return (
    <div className="app">
      <header className="app-header">
        <h1>Tokenbench</h1>
        <span className={`connection connection-${connection}`} data-testid="connection-state">
          {CONNECTION_LABELS[connection]}
        </span>
      </header>
      {problem && (
        <p className="problem" role="alert" data-testid="connection-error">
          {problem}
        </p>
      )}
      <main className="panels">
        <StatusPanel />
        <div className="workspace">
          <HistoryPanel />
          <EntryPanel />
        </div>
      </main>
    </div>
  );
}
