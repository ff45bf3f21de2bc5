import { useEngineStore, type Connection } from '../state/engine-store';
import { useIdentityStore } from '../state/identity-store';

const CONNECTION_LABELS: Record<Connection, string> = { connecting: 'connecting', live: 'live', lost: 'disconnected', failed: 'not connected' };

/** Where the engine runs, what its vault holds, and whether the workbench still hears it. */
export function StatusBar() {
  const connection = useEngineStore((state) => state.connection);
  const status = useEngineStore((state) => state.status);
  const person = useIdentityStore((state) => state.person);
  return (
    <footer className="status-bar" aria-label="Engine">
      <span className={`connection connection-${connection}`} role="status" aria-label="Connection">
        {CONNECTION_LABELS[connection]}
      </span>
      {status && (
        <dl>
          <div>
            <dt>API</dt>
            <dd>{status.url}</dd>
          </div>
          <div>
            <dt>Echo destination</dt>
            <dd>{status.echoUrl ?? 'off'}</dd>
          </div>
          <div>
            <dt>Vault</dt>
            <dd>{status.dataDir ?? 'in memory (nothing is kept)'}</dd>
          </div>
          <div>
            <dt>Tokens</dt>
            <dd className="number">{status.tokenCount}</dd>
          </div>
          <div>
            <dt>Applications</dt>
            <dd className="number">{status.applicationCount}</dd>
          </div>
          {person && (
            <div>
              <dt>Signed in as</dt>
              <dd>{person.name}</dd>
            </div>
          )}
        </dl>
      )}
    </footer>
  );
}
