import { useState } from 'react';
import type { ApplicationDetail } from '../../../../shared/workbench/contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { SecretValue } from '../../components/SecretValue';
import { refreshApplicationDetails } from '../../state/application-details-store';

/** The keys Tokenbench keeps, labelled by what uses them. */
const KEPT_LABELS = { workbench: 'workbench key (the Composer’s)', export: 'export key (seed files carry it)' } as const;

/**
 * An application's keys: made here (the secret shown this once, to copy) and revoked here. The keys Tokenbench keeps
 * (the one the workbench sends with, the one exported seed files carry) are labelled, so revoking one is a choice made
 * knowingly; the next send as the application, or the next export, makes another.
 */
export function ApplicationKeys({ application }: { application: ApplicationDetail }) {
  const api = useWorkbenchApi();
  const { busy, problem, run } = useEngineCall();
  // The new secret lives here only, until the user is done with it: never in a store, never listed again.
  const [made, setMade] = useState<{ id: string; key: string } | null>(null);
  const create = () =>
    run(async () => {
      const { key } = await api.createApplicationKey({ application_id: application.id });
      setMade({ id: key.id, key: key.key });
      await refreshApplicationDetails(api);
    });
  const revoke = (keyId: string) =>
    run(async () => {
      await api.revokeApplicationKey({ application_id: application.id, key_id: keyId });
      if (made?.id === keyId) setMade(null);
      await refreshApplicationDetails(api);
    });
  return (
    <section className="settings-subsection" aria-labelledby={`keys-${application.id}`}>
      <h4 id={`keys-${application.id}`}>Keys</h4>
      {made && (
        <SecretValue
          label={`New key of ${application.name}`}
          value={made.key}
          note="Shown this once: copy it now. Tokenbench keeps only a keyed hash of it."
          onDone={() => setMade(null)}
        />
      )}
      {application.keys.length === 0 ? (
        <p className="muted">No keys: no client can call as this application.</p>
      ) : (
        <table className="data-table" aria-label={`Keys of ${application.name}`}>
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Made</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {application.keys.map((key) => (
              <tr key={key.id}>
                <td>
                  <code title={key.id}>{key.id.slice(0, 8)}</code>
                  {key.kept && <span className="badge badge-workbench">{KEPT_LABELS[key.kept]}</span>}
                </td>
                <td className="time">{new Date(key.created_at).toLocaleString()}</td>
                <td className="number">
                  <button type="button" className="small danger" disabled={busy} onClick={() => void revoke(key.id)} aria-label={`Revoke key ${key.id.slice(0, 8)}`}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" className="small" disabled={busy} onClick={() => void create()}>
        Create key
      </button>
      <Alert message={problem} />
    </section>
  );
}
