import { useState } from 'react';
import type { ApplicationDetail } from '../../../../shared/workbench/application-contract';
import { keyName } from '../../../../shared/workbench/key-name';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { plural } from '../../components/format';
import { SecretValue } from '../../components/SecretValue';
import { refreshApplicationDetails } from '../../state/application-details-store';
import { ActionOutcome } from './SettingFields';
import { ColumnHeads } from '../../components/ColumnHeads';

type Key = ApplicationDetail['keys'][number];

/** The keys Tokenbench keeps, labelled by what uses them. */
const KEPT_LABELS = { workbench: 'used by the workbench', export: 'carried by seed files', runtime: 'used by proxy transforms' } as const;

/** What revoking a key takes away, beyond the key itself: asked before, and said after. */
const REVOKING = {
  client: { asked: 'Clients calling with it get 401 from then on.', after: 'clients using it now get 401.' },
  workbench: { asked: 'The Composer makes another on its next send as this application.', after: 'the Composer makes another on its next send.' },
  export: {
    asked: 'Seed files exported so far carry it: they stop working here, and the next export makes another.',
    after: 'seed files exported so far no longer work here.',
  },
  runtime: {
    asked: 'Proxy transforms calling with it get 401 at once; the next call that needs one makes another.',
    after: 'the next proxy call that needs one makes another.',
  },
} as const;

/** The keys made for clients apart from the ones Tokenbench keeps for itself: a count of each. */
export function keyCounts(application: ApplicationDetail): { clients: number; kept: number } {
  const kept = application.keys.filter((key) => key.kept !== null).length;
  return { clients: application.keys.length - kept, kept };
}

/** The keys in a sentence, the clients' first: Tokenbench's own do not let a client call. */
function KeysSummary({ application }: { application: ApplicationDetail }) {
  const { clients, kept } = keyCounts(application);
  if (clients + kept === 0) return <p className="muted">No keys: no client can call as this application.</p>;
  const made = clients === 0 ? 'No key made for clients' : `${plural(clients, 'key', 'keys')} made for clients`;
  return (
    <p className="muted">
      {made}
      {kept > 0 ? `, and ${kept} that Tokenbench keeps for itself` : ''}.
    </p>
  );
}

/**
 * An application's keys, each named by its last four: made here (the secret shown this once, to copy) and revoked
 * here after a confirmation. The keys Tokenbench keeps (the one the workbench sends with, the one exported seed files
 * carry, the one proxy transforms call back with) are labelled, so revoking one is a choice made knowingly; the next
 * send as the application, export or proxy call makes another.
 */
export function ApplicationKeys({ application }: { application: ApplicationDetail }) {
  const api = useWorkbenchApi();
  const { busy, problem, run } = useEngineCall();
  // The new secret lives here only, until the user is done with it: never in a store, never listed again.
  const [made, setMade] = useState<{ id: string; key: string } | null>(null);
  const [asking, setAsking] = useState<Key | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const create = () =>
    run(async () => {
      setDone(null);
      const { key } = await api.createApplicationKey({ application_id: application.id });
      setMade({ id: key.id, key: key.key });
      await refreshApplicationDetails(api);
    });
  const revoke = (key: Key) =>
    run(async () => {
      await api.revokeApplicationKey({ application_id: application.id, key_id: key.id });
      if (made?.id === key.id) setMade(null);
      setAsking(null);
      setDone(`Key ${keyName(key)} of “${application.name}” revoked: ${REVOKING[key.kept ?? 'client'].after}`);
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
      <KeysSummary application={application} />
      {application.keys.length > 0 && (
        <table className="data-table" aria-label={`Keys of ${application.name}`}>
          <ColumnHeads columns={['Key', 'Made']} buttons="Actions" />
          <tbody>
            {application.keys.map((key) => (
              <tr key={key.id}>
                <td>
                  <code title={key.id}>{keyName(key)}</code>
                  {key.kept && <span className="badge badge-workbench">{KEPT_LABELS[key.kept]}</span>}
                </td>
                <td className="time">{new Date(key.created_at).toLocaleString()}</td>
                <td className="number">
                  <button type="button" className="small danger" disabled={busy} onClick={() => setAsking(key)} aria-label={`Revoke key ${keyName(key)}`}>
                    Revoke…
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
      {asking && (
        <ConfirmDialog
          title={`Revoke key ${keyName(asking)} of “${application.name}”?`}
          confirm={`Revoke key ${keyName(asking)}`}
          busy={busy}
          problem={problem}
          onConfirm={() => void revoke(asking)}
          onClose={() => setAsking(null)}
        >
          <p>{REVOKING[asking.kept ?? 'client'].asked}</p>
          <p>A revoked key cannot come back: a new key has a new secret, to hand out again.</p>
        </ConfirmDialog>
      )}
      <ActionOutcome done={done} problem={asking ? null : problem} />
    </section>
  );
}
