import { useState } from 'react';
import type { AccessRuleView, ApplicationDetail } from '../../../../shared/workbench/application-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { plural } from '../../components/format';
import { refreshApplicationDetails, usePermissions } from '../../state/application-details-store';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ApplicationKeys, keyCounts } from './ApplicationKeys';
import { PermissionChecks } from './PermissionChecks';
import { RulesPreview } from './RulesPreview';
import { RulesEditor } from './RulesEditor';

const BARE_MEANING: Record<ApplicationDetail['type'], string> = {
  private: 'Each permission on its own acts as a last rule on every container: masked, except token:use, proxy:invoke and reactor:invoke, which reveal to the proxy or a reactor’s code.',
  public: 'A public application (a browser front end) may only create and update tokens and create token intents.',
  management: 'A management application manages applications, keys, pre-configured proxies and reactors; it holds no token permissions and takes no rules.',
};

/** Deleting asks first, saying what goes with it; what happened is said in the section, as the editor goes. */
function DeleteApplication({ application, onDeleted }: { application: ApplicationDetail; onDeleted: (done: string) => void }) {
  const api = useWorkbenchApi();
  const [asking, setAsking] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const { clients, kept } = keyCounts(application);
  const remove = () =>
    run(async () => {
      await api.deleteApplication({ application_id: application.id });
      setAsking(false);
      onDeleted(`Application “${application.name}” deleted: its keys no longer work.`);
      await refreshApplicationDetails(api);
    });
  return (
    <div className="settings-delete">
      <button type="button" className="danger small" onClick={() => setAsking(true)}>
        Delete application…
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete application “${application.name}”?`}
          confirm={`Delete “${application.name}”`}
          busy={busy}
          problem={problem}
          onConfirm={() => void remove()}
          onClose={() => setAsking(false)}
        >
          <p>
            Its keys stop working at once: {plural(clients, 'key', 'keys')} made for clients
            {kept > 0 ? `, and ${kept} that Tokenbench keeps for itself` : ''}. Its permissions and access rules go with it.
          </p>
          <p>This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/**
 * One application as Settings edits it: its name, permissions and access rules, saved together as PUT
 * /applications/{id} takes them (the engine says what it refuses); its keys; its deletion. Keyed by the application,
 * so choosing another starts afresh.
 */
const INVOKE_PERMISSIONS: ReadonlySet<string> = new Set(['proxy:invoke', 'reactor:invoke']);

export function ApplicationEditor({ application, onDeleted }: { application: ApplicationDetail; onDeleted: (done: string) => void }) {
  const api = useWorkbenchApi();
  const permissions = usePermissions();
  const [name, setName] = useState(application.name);
  const [granted, setGranted] = useState<string[]>(application.permissions);
  const [rules, setRules] = useState<AccessRuleView[]>(application.rules);
  const [saved, setSaved] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const allowed = permissions.filter((permission) => permission.application_types.includes(application.type));
  // proxy:invoke and reactor:invoke are uses of tokens like token:use: a rule may grant them on its containers.
  const tokenPermissions = allowed.filter((permission) => permission.type.startsWith('token:') || INVOKE_PERMISSIONS.has(permission.type));
  const save = () =>
    run(async () => {
      await api.updateApplication({ id: application.id, name, permissions: granted, rules });
      setSaved(true);
      await refreshApplicationDetails(api);
    });
  const edited = <T,>(set: (value: T) => void) => (value: T) => {
    set(value);
    setSaved(false);
  };
  const titleId = `application-${application.id}`;
  return (
    <section className="settings-application" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {application.name} <span className="muted">· {application.type}</span>
      </h3>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label className="settings-field">
          Name
          <input type="text" value={name} onChange={(event) => edited(setName)(event.target.value)} />
        </label>
        <fieldset className="settings-fieldset">
          <legend>Permissions</legend>
          <p className="muted settings-hint">{BARE_MEANING[application.type]}</p>
          <PermissionChecks permissions={allowed} granted={granted} onChange={edited(setGranted)} />
        </fieldset>
        {application.type !== 'management' && <RulesEditor rules={rules} permissions={tokenPermissions} onChange={edited(setRules)} />}
        <div className="settings-actions">
          <button type="submit" className="primary" disabled={busy}>
            Save changes
          </button>
          <span role="status" className="muted">
            {saved ? 'Saved: the next request as this application uses them.' : ''}
          </span>
        </div>
        <Alert message={problem} />
      </form>
      {application.type !== 'management' && <RulesPreview application={application} draft={{ permissions: granted, rules }} />}
      <ApplicationKeys application={application} />
      <DeleteApplication application={application} onDeleted={onDeleted} />
    </section>
  );
}
