import { useState, type FormEvent } from 'react';
import type { SecretInfo } from '../../../../shared/workbench/secret-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { plural } from '../../components/format';
import { useTimedReveal } from '../../components/timed-reveal';
import { useSecretsStore } from '../../state/secrets-store';
import { ActionOutcome } from './SettingFields';
import { ColumnHeads } from '../../components/ColumnHeads';

/** The saved requests that refer to a secret, in a few words. */
const usesOf = (secret: SecretInfo) => secret.used_by.map(({ collection, name }) => `${collection}/${name}`).join(', ');

/** A value just revealed: shown for a while, with Copy and Hide; the page never keeps it elsewhere. */
function RevealedSecret({ name, value, secondsLeft, onHide }: { name: string; value: string; secondsLeft: number; onHide: () => void }) {
  return (
    <div className="secret" role="group" aria-label={`Value of ${name}`}>
      <span className="secret-label">{name}</span>
      <div className="secret-line">
        <code className="secret-value">{value}</code>
        <CopyButton text={value} label={`Copy the value of ${name}`} />
        <button type="button" className="small" onClick={onHide}>
          Hide
        </button>
      </div>
      <p className="muted secret-note" role="status">
        Recorded in History by name · hides in {secondsLeft} s
      </p>
    </div>
  );
}

/** One secret's row: its uses, when it was set, and Reveal, Replace and Delete (after a confirmation that names its uses). */
function SecretRow({ secret, onReveal, onDeleted }: { secret: SecretInfo; onReveal: (name: string) => void; onDeleted: (done: string) => void }) {
  const api = useWorkbenchApi();
  const [mode, setMode] = useState<'idle' | 'replacing' | 'deleting'>('idle');
  const [value, setValue] = useState('');
  const { busy, problem, run } = useEngineCall();
  const replace = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      await api.setSecret({ name: secret.name, value });
      setValue('');
      setMode('idle');
      await useSecretsStore.refresh(api);
    });
  };
  const remove = () =>
    run(async () => {
      await api.deleteSecret({ name: secret.name });
      setMode('idle');
      onDeleted(`Deleted secret ${secret.name}${secret.used_by.length === 0 ? '.' : `: ${usesOf(secret)} cannot be sent until a secret of that name is set again.`}`);
      await useSecretsStore.refresh(api);
    });
  return (
    <>
      <tr>
        <td className="secret-name">
          <code>{secret.name}</code>
        </td>
        <td>{secret.used_by.length === 0 ? <span className="muted">no saved request</span> : usesOf(secret)}</td>
        <td className="time">{new Date(secret.updated_at).toLocaleString()}</td>
        <td className="number secret-actions">
          <button type="button" className="small" disabled={busy} aria-label={`Reveal ${secret.name}`} onClick={() => onReveal(secret.name)}>
            Reveal
          </button>
          <button type="button" className="small" disabled={busy} aria-label={`Replace ${secret.name}`} onClick={() => setMode('replacing')}>
            Replace
          </button>
          <button type="button" className="small danger" disabled={busy} aria-label={`Delete ${secret.name}`} onClick={() => setMode('deleting')}>
            Delete
          </button>
        </td>
      </tr>
      {mode === 'replacing' && (
        <tr className="secret-change">
          <td colSpan={4}>
            <form className="settings-inline" aria-label={`Replace ${secret.name}`} onSubmit={replace}>
              <label className="settings-field">
                New value of <code>{secret.name}</code>
                <input type="password" autoComplete="off" required autoFocus value={value} onChange={(event) => setValue(event.target.value)} />
              </label>
              <button type="submit" className="small primary" disabled={busy}>
                Replace
              </button>
              <button type="button" className="small" onClick={() => setMode('idle')}>
                Cancel
              </button>
            </form>
            <Alert message={problem} />
          </td>
        </tr>
      )}
      {mode === 'deleting' && (
        <tr className="secret-change">
          <td colSpan={4}>
            <ConfirmDialog
              title={`Delete ${secret.name}?`}
              confirm={`Delete ${secret.name}`}
              busy={busy}
              problem={problem}
              onConfirm={() => void remove()}
              onClose={() => setMode('idle')}
            >
              <p>
                {secret.used_by.length === 0
                  ? 'No saved request refers to it.'
                  : `${plural(secret.used_by.length, 'saved request refers', 'saved requests refer')} to it (${usesOf(secret)}): they cannot be sent until a secret of that name is set again.`}{' '}
                Its value cannot be recovered.
              </p>
            </ConfirmDialog>
          </td>
        </tr>
      )}
    </>
  );
}

/** Sets a new secret, or the value of one of that name. The value lives in this form until it is sent. */
function SetSecret() {
  const api = useWorkbenchApi();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { busy, problem, run } = useEngineCall();
  const set = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      setDone(null);
      const saved = await api.setSecret({ name: name.trim(), value });
      setValue('');
      setName('');
      setDone(`Set ${saved.name}: refer to it as \${secret:${saved.name}} in a header value.`);
      await useSecretsStore.refresh(api);
    });
  };
  return (
    <form className="settings-inline" aria-label="Set a secret" onSubmit={set}>
      <input type="text" aria-label="Name of the secret" placeholder="Name, as stripe-test" spellCheck={false} required value={name} onChange={(event) => setName(event.target.value)} />
      <input type="password" aria-label="Value of the secret" placeholder="Value" autoComplete="off" required value={value} onChange={(event) => setValue(event.target.value)} />
      <button type="submit" className="small" disabled={busy}>
        Set secret
      </button>
      <ActionOutcome done={done} problem={problem} />
    </form>
  );
}

/** The credentials saved requests refer to by name: listed, set, replaced, deleted, and revealed on request. */
export function SecretsSection() {
  const api = useWorkbenchApi();
  const secrets = useSecretsStore((state) => state.value);
  const problem = useSecretsStore((state) => state.problem);
  const [done, setDone] = useState<string | null>(null);
  const { revealed, secondsLeft, show, hide } = useTimedReveal<{ name: string; value: string }>();
  const reveal = useEngineCall();
  useSecretsStore.useRefreshed();
  const showValue = (name: string) => void reveal.run(async () => show({ name, ...(await api.revealSecret({ name })) }));
  return (
    <section className="panel settings-section" aria-labelledby="settings-secrets">
      <h2 id="settings-secrets">Secrets</h2>
      <p className="muted settings-hint">
        Credentials that saved requests refer to by name, as <code>{'${secret:NAME}'}</code> in a header value (
        <code>{'Authorization: Bearer ${secret:stripe-test}'}</code>), so their files hold none. Saving or importing a request moves its credentials here.
        The engine keeps each value sealed and puts it in as the request leaves; Copy as cURL reads it from an environment variable.
      </p>
      <Alert message={problem} />
      {secrets &&
        (secrets.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <table className="data-table" aria-label="Secrets">
            <ColumnHeads columns={['Name', 'Used by', 'Last set']} buttons="Actions" />
            <tbody>
              {secrets.map((secret) => (
                <SecretRow key={secret.name} secret={secret} onReveal={showValue} onDeleted={setDone} />
              ))}
            </tbody>
          </table>
        ))}
      <ActionOutcome done={done} problem={null} />
      {revealed && <RevealedSecret name={revealed.name} value={revealed.value} secondsLeft={secondsLeft} onHide={hide} />}
      <Alert message={reveal.problem} />
      <SetSecret />
    </section>
  );
}
