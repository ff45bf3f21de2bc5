import { useId, useState } from 'react';
import { APPLICATION_TYPES, type ApplicationDetail } from '../../../../shared/workbench/application-contract';
import { WorkbenchError } from '../../../../shared/workbench/transport';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import {
  refreshApplicationDetails,
  useApplicationDetailsProblem,
  useApplicationDetailsRefreshed,
  useApplicationDetailsStore,
  usePermissions,
} from '../../state/application-details-store';
import { ApplicationEditor } from './ApplicationEditor';
import { keyCounts } from './ApplicationKeys';
import { PermissionChecks } from './PermissionChecks';
import { ActionOutcome } from './SettingFields';

/** An application's keys in its row: the clients', then the ones Tokenbench keeps, which let no client call. */
function keysCell(application: ApplicationDetail): string {
  const { clients, kept } = keyCounts(application);
  return kept === 0 ? String(clients) : `${clients} +${kept} kept`;
}

const TYPE_MEANING: Record<ApplicationDetail['type'], string> = {
  private: 'a back end: tokens and the proxy',
  public: 'a browser front end: creates and updates tokens',
  management: 'a tool that manages applications and keys',
};

/** The permissions a new application of each type starts with ticked: what such a client usually needs. */
const USUAL_PERMISSIONS: Record<ApplicationDetail['type'], string[]> = {
  private: ['token:create', 'token:read', 'token:use'],
  public: ['token:create'],
  management: ['application:read'],
};

/**
 * A new application: a name, a type and the permissions that type may hold; rules and keys follow in its editor. The
 * engine's refusal of a field is said beside it.
 */
function NewApplication({ onCreated }: { onCreated: (id: string, done: string) => void }) {
  const api = useWorkbenchApi();
  const permissions = usePermissions();
  const [name, setName] = useState('');
  const [type, setType] = useState<ApplicationDetail['type']>('private');
  const [granted, setGranted] = useState(USUAL_PERMISSIONS.private);
  const [nameProblem, setNameProblem] = useState<string | null>(null);
  const { busy, problem, run } = useEngineCall();
  const nameProblemId = useId();
  const create = () =>
    run(async () => {
      setNameProblem(null);
      try {
        const created = await api.createApplication({ name, type, permissions: granted, rules: [] });
        setName('');
        const held = created.permissions.length === 0 ? 'no permissions' : created.permissions.join(', ');
        onCreated(created.id, `Created application “${created.name}” (${created.type}) with ${held}.`);
        await refreshApplicationDetails(api);
      } catch (error) {
        const said = error instanceof WorkbenchError ? error.problem.errors?.name : undefined;
        if (!said) throw error;
        setNameProblem(said.join(' '));
      }
    });
  const choose = (chosen: ApplicationDetail['type']) => {
    setType(chosen);
    setGranted(USUAL_PERMISSIONS[chosen]);
  };
  return (
    <form
      className="settings-new-application"
      aria-label="New application"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h3>New application</h3>
      <div className="settings-inline">
        <input
          type="text"
          placeholder="Name"
          aria-label="Name of the new application"
          aria-invalid={nameProblem ? true : undefined}
          aria-describedby={nameProblem ? nameProblemId : undefined}
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setNameProblem(null);
          }}
        />
        <select aria-label="Type of the new application" value={type} onChange={(event) => choose(event.target.value as ApplicationDetail['type'])}>
          {APPLICATION_TYPES.map((option) => (
            <option key={option} value={option}>
              {option}: {TYPE_MEANING[option]}
            </option>
          ))}
        </select>
        {nameProblem && (
          <p className="problem" id={nameProblemId}>
            {nameProblem}
          </p>
        )}
      </div>
      <fieldset className="settings-fieldset" aria-label="Permissions of the new application">
        <legend>Permissions</legend>
        <PermissionChecks permissions={permissions.filter((permission) => permission.application_types.includes(type))} granted={granted} onChange={setGranted} />
      </fieldset>
      <button type="submit" className="small" disabled={busy}>
        Create application
      </button>
      <Alert message={problem} />
    </form>
  );
}

/** Who may call the vault: every application, one opened in its editor, and a form for another. */
export function ApplicationsSection() {
  const applications = useApplicationDetailsStore((state) => state.value);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const problem = useApplicationDetailsProblem();
  const [done, setDone] = useState<string | null>(null);
  useApplicationDetailsRefreshed();
  const selected = applications?.find((application) => application.id === selectedId);
  return (
    <section className="panel settings-section" aria-labelledby="settings-applications">
      <h2 id="settings-applications">Applications</h2>
      <p className="muted settings-hint">Each client calls as an application, with one of its keys; its permissions and access rules decide what it gets.</p>
      <Alert message={problem} />
      {applications && (
        <table className="data-table" aria-label="Applications">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col" className="number">
                Keys
              </th>
              <th scope="col" className="number">
                Rules
              </th>
            </tr>
          </thead>
          <tbody>
            {applications.map((application) => (
              <tr key={application.id} aria-selected={application.id === selectedId} className={application.id === selectedId ? 'selected' : undefined}>
                <td>
                  <button type="button" className="link" onClick={() => setSelectedId(application.id)}>
                    {application.name}
                  </button>
                </td>
                <td>{application.type}</td>
                <td className="number">{keysCell(application)}</td>
                <td className="number">{application.rules.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ActionOutcome done={done} problem={null} />
      <NewApplication
        onCreated={(id, said) => {
          setSelectedId(id);
          setDone(said);
        }}
      />
      {selected && (
        <ApplicationEditor
          key={selected.id}
          application={selected}
          onDeleted={(said) => {
            setSelectedId(null);
            setDone(said);
          }}
        />
      )}
    </section>
  );
}
