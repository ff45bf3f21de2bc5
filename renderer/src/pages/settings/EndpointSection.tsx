import { lastFour } from '../../../../shared/workbench/key-name';
import { SESSION_QUERY } from '../../../../shared/workbench/transport';
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

const SESSION_MARK = `#${SESSION_QUERY}=`;

/**
 * The browser workbench's address. The owner's session in it is a secret, which the page shows by its last four only
 * (as the keys are named) and the button copies whole; without one (a person's, or a session fixed at start) it is
 * shown as any address.
 */
function WorkbenchAddress({ url }: { url: string | null }) {
  const at = url?.indexOf(SESSION_MARK) ?? -1;
  if (url === null || at === -1) return <Address term="Workbench in a browser" value={url} copyLabel="Copy the browser workbench URL" />;
  return (
    <>
      <dt>Workbench in a browser</dt>
      <dd>
        <span className="mono">{url.slice(0, at)}</span> <span className="muted">with your session {lastFour(url.slice(-4))}</span>{' '}
        <CopyButton
          text={url}
          label="Copy the browser workbench URL with your session"
          refused="Could not copy (this browser lets only https and localhost pages copy): serve printed this address when it started"
        />
        <div className="muted">Whoever opens the copied address works as you until the engine stops: keep it private.</div>
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
          <WorkbenchAddress url={workbenchUrl} />
        </dl>
      ) : (
        <p className="muted">Shown once the engine is connected.</p>
      )}
    </section>
  );
}
