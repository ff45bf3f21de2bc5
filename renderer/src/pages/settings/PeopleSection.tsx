import { useState, type FormEvent } from 'react';
import type { CredentialInfo } from '../../../../shared/workbench/people-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ColumnHeads } from '../../components/ColumnHeads';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { SecretValue } from '../../components/SecretValue';
import { useCredentialsStore } from '../../state/people-store';
import { ActionOutcome } from './SettingFields';

/** Makes a credential by name; the engine says when the name is taken or malformed. */
function MakeCredential({ onMade }: { onMade: (made: { name: string; secret: string }) => void }) {
  const api = useWorkbenchApi();
  const [name, setName] = useState('');
  const { busy, problem, run } = useEngineCall();
  const make = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const made = await api.createCredential({ name: name.trim() });
      onMade({ name: made.credential.name, secret: made.secret });
      setName('');
      await useCredentialsStore.refresh(api);
    });
  };
  return (
    <form className="settings-inline" aria-label="Create a workbench credential" onSubmit={make}>
      <label className="settings-field">
        Person’s name
        <input type="text" value={name} required maxLength={64} placeholder="alice@example.com" onChange={(event) => setName(event.target.value)} />
      </label>
      <button type="submit" className="small" disabled={busy || name.trim() === ''}>
        Create credential
      </button>
      <Alert message={problem} />
    </form>
  );
}

function CredentialRow({ credential, onRevoked }: { credential: CredentialInfo; onRevoked: (done: string) => void }) {
  const api = useWorkbenchApi();
  const [asking, setAsking] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const revoke = () =>
    run(async () => {
      await api.revokeCredential({ name: credential.name });
      setAsking(false);
      onRevoked(`Revoked “${credential.name}”: their sessions ended, and their credential signs nobody in now.`);
      await useCredentialsStore.refresh(api);
    });
  return (
    <>
      <tr>
        <td>{credential.name}</td>
        <td className="time">{new Date(credential.created_at).toLocaleString()}</td>
        <td className="time">{credential.last_used_at ? new Date(credential.last_used_at).toLocaleString() : <span className="muted">never</span>}</td>
        <td className="number">
          <button type="button" className="small danger" aria-label={`Revoke the credential of ${credential.name}`} onClick={() => setAsking(true)}>
            Revoke…
          </button>
        </td>
      </tr>
      {asking && (
        <tr className="secret-change">
          <td colSpan={4}>
            <ConfirmDialog title={`Revoke the credential of “${credential.name}”?`} confirm="Revoke credential" busy={busy} problem={problem} onConfirm={() => void revoke()} onClose={() => setAsking(false)}>
              <p>Their open workbench sessions end at their next request, and the credential no longer signs in. History keeps what they did, by name.</p>
            </ConfirmDialog>
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * The people who may use this workbench besides its owner (docs/api.md, Workbench credentials): each signs in with a
 * credential of their own, so History names who did what. Made here (the secret shown once, to copy) or with
 * `tokenbench credentials`; revoked after a question.
 */
export function PeopleSection() {
  const credentials = useCredentialsStore((state) => state.value);
  const problem = useCredentialsStore((state) => state.problem);
  // The new secret lives here only, until the user is done with it: never in a store, never listed again.
  const [made, setMade] = useState<{ name: string; secret: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  useCredentialsStore.useRefreshed();
  return (
    <section className="panel settings-section" aria-labelledby="settings-people">
      <h2 id="settings-people">Workbench credentials</h2>
      <p className="muted settings-hint">
        A credential lets one person sign in to this workbench from a browser, under their own name in History and in events. Hand its secret over privately;
        the engine keeps only a hash of it. <code>tokenbench credentials create NAME</code> makes one too.
      </p>
      <Alert message={problem} />
      {made && (
        <SecretValue
          label={`Credential of ${made.name}`}
          value={made.secret}
          note="Shown this once: copy it now and give it to them. They paste it into the workbench’s sign-in form."
          onDone={() => setMade(null)}
        />
      )}
      {credentials &&
        (credentials.length === 0 ? (
          <p className="muted">None yet: only the owner (this app, or the address serve printed) uses the workbench.</p>
        ) : (
          <table className="data-table" aria-label="Workbench credentials">
            <ColumnHeads columns={['Person', 'Created', 'Last used']} buttons="Actions" />
            <tbody>
              {credentials.map((credential) => (
                <CredentialRow key={credential.id} credential={credential} onRevoked={setDone} />
              ))}
            </tbody>
          </table>
        ))}
      <MakeCredential
        onMade={(credential) => {
          setDone(null);
          setMade(credential);
        }}
      />
      <ActionOutcome done={done} problem={null} />
    </section>
  );
}
