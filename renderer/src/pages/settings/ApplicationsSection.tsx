import { useEffect, useState } from 'react';
import { APPLICATION_TYPES, type ApplicationDetail } from '../../../../shared/workbench/contract';
import { messageOf, useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { refreshApplicationDetails, useApplicationDetailsStore } from '../../state/application-details-store';
import { ApplicationEditor } from './ApplicationEditor';

const TYPE_MEANING: Record<ApplicationDetail['type'], string> = {
  private: 'a back end: tokens and the proxy',
  public: 'a browser front end: creates and updates tokens',
  management: 'a tool that manages applications and keys',
};

/** A new application: a name and a type; permissions, rules and keys follow in its editor. */
function NewApplication({ onCreated }: { onCreated: (id: string) => void }) {
  const api = useWorkbenchApi();
  const [name, setName] = useState('');
  const [type, setType] = useState<ApplicationDetail['type']>('private');
  const { busy, problem, run } = useEngineCall();
  const create = () =>
    run(async () => {
      const created = await api.createApplication({ name, type, permissions: [], rules: [] });
      setName('');
      onCreated(created.id);
      await refreshApplicationDetails(api);
    });
  return (
    <form
      className="settings-inline"
      aria-label="New application"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <input type="text" placeholder="Name" aria-label="Name of the new application" value={name} onChange={(event) => setName(event.target.value)} />
      <select aria-label="Type of the new application" value={type} onChange={(event) => setType(event.target.value as ApplicationDetail['type'])}>
        {APPLICATION_TYPES.map((option) => (
          <option key={option} value={option}>
            {option}: {TYPE_MEANING[option]}
          </option>
        ))}
      </select>
      <button type="submit" className="small" disabled={busy}>
        Create application
      </button>
      <Alert message={problem} />
    </form>
  );
}

/** Who may call the vault: every application, one opened in its editor, and a form for another. */
export function ApplicationsSection() {
  const api = useWorkbenchApi();
  const applications = useApplicationDetailsStore((state) => state.applications);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    refreshApplicationDetails(api).catch((error: unknown) => setProblem(messageOf(error)));
  }, [api]);
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
                <td className="number">{application.keys.length}</td>
                <td className="number">{application.rules.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <NewApplication onCreated={setSelectedId} />
      {selected && <ApplicationEditor key={selected.id} application={selected} onDeleted={() => setSelectedId(null)} />}
    </section>
  );
}
