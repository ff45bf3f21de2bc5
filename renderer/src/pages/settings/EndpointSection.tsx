import { CopyButton } from '../../components/CopyButton';
import { useEngineStore } from '../../state/engine-store';
import { useSettingsStore } from '../../state/settings-store';

/** One address, to copy. */
function Address({ term, value, copyLabel }: { term: string; value: string | null; copyLabel: string }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>
        {value === null ? (
          <span className="muted">off</span>
        ) : (
          <>
            <span className="mono">{value}</span> <CopyButton text={value} label={copyLabel} />
          </>
        )}
      </dd>
    </>
  );
}

/** Where clients reach this engine: the API, the echo destination, the header prefix, and this workbench in a browser. */
export function EndpointSection() {
  const status = useEngineStore((state) => state.status);
  const workbenchUrl = useSettingsStore((state) => state.value?.workbenchUrl ?? null);
  return (
    <section className="panel settings-section" aria-labelledby="settings-endpoint">
      <h2 id="settings-endpoint">Endpoint</h2>
      {status ? (
        <dl className="settings-facts">
          <Address term="API" value={status.url} copyLabel="Copy the API URL" />
          <Address term="Echo destination" value={status.echoUrl} copyLabel="Copy the echo destination URL" />
          <dt>Header prefix</dt>
          <dd>
            <span className="mono">{status.headerPrefix}</span> <span className="muted">(as in {status.headerPrefix}-API-KEY)</span>
          </dd>
          <Address term="Workbench in a browser" value={workbenchUrl} copyLabel="Copy the browser workbench URL" />
        </dl>
      ) : (
        <p className="muted">Shown once the engine is connected.</p>
      )}
    </section>
  );
}
