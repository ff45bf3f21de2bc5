import { useEngineStore } from '../../state/engine-store';

/** Where the engine runs and what its vault holds. */
export function StatusPanel() {
  const status = useEngineStore((state) => state.status);
  return (
    <section className="panel" aria-labelledby="status-title" data-testid="status-panel">
      <h2 id="status-title">Engine</h2>
      {status ? (
        <dl className="facts">
          <dt>API</dt>
          <dd data-testid="status-url">{status.url}</dd>
          <dt>Echo destination</dt>
          <dd data-testid="status-echo-url">{status.echoUrl ?? 'off'}</dd>
          <dt>Vault</dt>
          <dd data-testid="status-vault">{status.dataDir ?? 'in memory (nothing is kept)'}</dd>
          <dt>Tokens</dt>
          <dd data-testid="status-token-count">{status.tokenCount}</dd>
          <dt>Applications</dt>
          <dd data-testid="status-application-count">{status.applicationCount}</dd>
        </dl>
      ) : (
        <p className="muted">Waiting for the engine…</p>
      )}
    </section>
  );
}
