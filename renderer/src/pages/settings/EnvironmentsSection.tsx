import { useState, type FormEvent } from 'react';
import type { EnvironmentsView } from '../../../../shared/workbench/environment-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useEnvironmentsStore } from '../../state/environments-store';
import { ActionOutcome } from './SettingFields';
import { ColumnHeads } from '../../components/ColumnHeads';

type Listed = EnvironmentsView['environments'][number];

/** A variable as the editor holds it: a secret one's value only once typed (the page never reads a secret's value). */
interface Row {
  name: string;
  value: string;
  secret: boolean;
  /** For a secret variable already saved: the secret keeping its value, and whether it is set here. */
  kept: { secret: string; set: boolean } | null;
}

const BLANK: Row = { name: '', value: '', secret: false, kept: null };

const rowsOf = (environment: Listed | null): Row[] =>
  (environment?.variables ?? []).map(({ name, value, secret, secret_set }) => ({
    name,
    value: value ?? '',
    secret: secret !== null,
    kept: secret === null ? null : { secret, set: secret_set },
  }));

/** The placeholder of a secret variable's value: where it is kept, and that typing replaces it. */
function secretPlaceholder(row: Row): string {
  if (!row.kept) return 'Its value, kept in Secrets';
  return row.kept.set ? `Kept in Secrets as ${row.kept.secret}: type to replace` : `Not set here (${row.kept.secret}): type its value`;
}

/** One environment's name and variables, saved whole: a secret variable's value goes to Secrets, never to the folder. */
function EnvironmentEditor({ environment, onDone }: { environment: Listed | null; onDone: (outcome: string | null) => void }) {
  const api = useWorkbenchApi();
  const [name, setName] = useState(environment?.name ?? '');
  const [rows, setRows] = useState<Row[]>(rowsOf(environment));
  const [deleting, setDeleting] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const shown = [...rows, BLANK];
  const which = (row: Row, i: number) => (i === rows.length ? 'new variable' : `variable ${row.name || i + 1}`);
  const change = (at: number, patch: Partial<Row>) => {
    const next = shown.map((row, i) => (i === at ? { ...row, ...patch } : row));
    setRows(next.filter((row, i) => i < rows.length || row.name !== '' || row.value !== ''));
  };
  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const variables = rows
        .filter((row) => row.name.trim() !== '')
        // A kept secret whose value was not typed again keeps its value: the page never had it.
        .map((row) => ({ name: row.name.trim(), secret: row.secret, ...(row.secret && row.kept && row.value === '' ? {} : { value: row.value }) }));
      const view = await api.saveEnvironment({ name: name.trim(), ...(environment && { from: environment.name }), variables });
      useEnvironmentsStore.getState().loaded(view);
      onDone(`Saved “${name.trim()}”.`);
    });
  };
  const remove = () =>
    void run(async () => {
      useEnvironmentsStore.getState().loaded(await api.deleteEnvironment({ name: environment!.name }));
      onDone(`Deleted “${environment!.name}”.`);
    });
  const title = environment ? `Edit ${environment.name}` : 'New environment';
  return (
    <form className="environment-editor" aria-label={title} onSubmit={save}>
      <label className="settings-field">
        Name
        <input type="text" required spellCheck={false} value={name} onChange={(event) => setName(event.target.value)} placeholder="staging" autoFocus={!environment} />
      </label>
      {environment?.problem && <Alert message={`Its file is not an environment: ${environment.problem}. Save it to write it again, or delete it.`} />}
      <table className="rows-table environment-variables" aria-label="Variables">
        <ColumnHeads columns={['Variable', 'Value', 'Secret']} buttons="Remove" />
        <tbody>
          {shown.map((row, i) => (
            <tr key={i}>
              <td>
                <input type="text" aria-label={`Name of ${which(row, i)}`} spellCheck={false} value={row.name} placeholder="base_url" onChange={(e) => change(i, { name: e.target.value })} />
              </td>
              <td>
                <input
                  type={row.secret ? 'password' : 'text'}
                  autoComplete="off"
                  aria-label={`Value of ${which(row, i)}`}
                  spellCheck={false}
                  value={row.value}
                  placeholder={row.secret ? secretPlaceholder(row) : ''}
                  onChange={(e) => change(i, { value: e.target.value })}
                />
              </td>
              <td>
                {i < rows.length && (
                  <input
                    type="checkbox"
                    aria-label={`Keep ${which(row, i)} in Secrets`}
                    checked={row.secret}
                    // A kept secret made plain again shows no value: the page never had it.
                    onChange={(e) => change(i, { secret: e.target.checked, ...(!e.target.checked && row.kept ? { value: '' } : {}) })}
                  />
                )}
              </td>
              <td>
                {i < rows.length && (
                  <button type="button" className="small" aria-label={`Remove ${which(row, i)}`} onClick={() => setRows(rows.filter((_, j) => j !== i))}>
                    ×
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted settings-hint">
        Requests refer to a variable as <code>{'${env:NAME}'}</code>, in the URL, a header or the body. A secret one’s value goes to Secrets, sealed in the
        vault; the file names the secret, so a teammate sets their own.
      </p>
      <div className="settings-actions">
        <button type="submit" className="primary" disabled={busy}>
          Save environment
        </button>
        <button type="button" disabled={busy} onClick={() => onDone(null)}>
          Cancel
        </button>
        {environment && (
          <button type="button" className="danger" disabled={busy} onClick={() => setDeleting(true)}>
            Delete…
          </button>
        )}
      </div>
      {deleting && environment && (
        <ConfirmDialog
          title={`Delete ${environment.name}?`}
          confirm={`Delete ${environment.name}`}
          busy={busy}
          problem={problem}
          onConfirm={remove}
          onClose={() => setDeleting(false)}
        >
          <p>Its file leaves the folder; the secrets it refers to stay in Secrets.</p>
        </ConfirmDialog>
      )}
      <Alert message={problem} />
    </form>
  );
}

/**
 * The environments beside the saved requests (local, staging, the hosted test tenant, …): their variables, which
 * requests refer to as `${env:NAME}`, added, renamed, edited and deleted here; the Composer chooses among them.
 */
export function EnvironmentsSection() {
  const view = useEnvironmentsStore((state) => state.value);
  const problem = useEnvironmentsStore((state) => state.problem);
  /** The environment on show: its name, '' for a new one, null for none. */
  const [editing, setEditing] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  useEnvironmentsStore.useRefreshed();
  const environments = view?.environments ?? [];
  const open = environments.find((environment) => environment.name === editing) ?? null;
  return (
    <section className="panel settings-section" id="environments" aria-labelledby="settings-environments">
      <h2 id="settings-environments">Environments</h2>
      <p className="muted settings-hint">
        Files in <code>environments/</code> of the saved requests’ folder, one per environment, for git beside the requests. The Composer sends with the one
        chosen beside Send as{view?.active ? `: now “${view.active}”` : ''}.
      </p>
      <Alert message={problem} />
      {view && environments.length === 0 && editing === null && <p className="muted">None yet.</p>}
      {environments.length > 0 && (
        <ul className="environment-list" aria-label="Environments">
          {environments.map((environment) => (
            <li key={environment.name}>
              <button
                type="button"
                className="link"
                aria-current={environment.name === editing ? 'true' : undefined}
                onClick={() => {
                  setDone(null);
                  setEditing(environment.name);
                }}
              >
                {environment.name}
              </button>
              <span className="muted">
                {environment.variables === null
                  ? ' · not an environment'
                  : ` · ${environment.variables.length} ${environment.variables.length === 1 ? 'variable' : 'variables'}`}
                {environment.name === view?.active ? ' · chosen' : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
      {editing === null ? (
        <div className="settings-actions">
          <button
            type="button"
            onClick={() => {
              setDone(null);
              setEditing('');
            }}
          >
            New environment
          </button>
        </div>
      ) : (
        <EnvironmentEditor
          key={editing}
          environment={open}
          onDone={(outcome) => {
            setDone(outcome);
            setEditing(null);
          }}
        />
      )}
      <ActionOutcome done={done} problem={null} />
    </section>
  );
}
