import type { ReactorDefinitionInput, ReactorView } from '../../../../shared/workbench/reactor-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { DefinitionActions, unplaced, useDefinitionDraft, type EditorEvents } from '../../components/definition-form';
import { FieldProblem, invalidProps, TextField } from '../../components/FieldProblem';
import { useReactorsStore } from '../../state/reactors-store';
import { CodeField } from '../proxies/CodeField';
import { ApplicationField } from '../proxies/ApplicationField';
import { ConfigurationField } from '../proxies/ConfigurationField';
import { RuntimeFields } from '../proxies/RuntimeFields';
import { REACTOR_DRAFTS, REACTOR_TEMPLATES } from './reactor-draft';

/** The fields the form places the engine's refusals at. */
const PLACED = /^(name|code|application\.id|application_id|configuration.*|runtime\.(timeout|permissions.*))$/;

/**
 * A reactor's definition as a form: name, code and its runtime, configuration and the linked application. Saving sends
 * it whole (PUT); what the engine refuses is said at the field it names, and the focus goes to the first.
 */
export function ReactorEditor({ reactor, onSaved, onDeleted, onChanged }: { reactor: ReactorView | null } & EditorEvents<ReactorView>) {
  const api = useWorkbenchApi();
  const save = (definition: ReactorDefinitionInput) => (reactor ? api.updateReactor({ id: reactor.id, ...definition }) : api.createReactor(definition));
  const { draft, edit, problems, saving, submit, formProps } = useDefinitionDraft('reactor', reactor, REACTOR_DRAFTS, { save, refresh: () => useReactorsStore.refresh(api) }, { onSaved, onChanged });
  const title = reactor ? `Reactor “${reactor.name}”` : 'New reactor';
  return (
    <form className="proxy-editor" aria-label={title} {...formProps(() => void submit(), false)}>
      <h2>{title}</h2>
      {reactor && (
        <p className="muted proxy-hint">
          <span className="mono">{reactor.id}</span> · {reactor.state} · made {new Date(reactor.created_at).toLocaleString()}
          {reactor.modified_at && <> · changed {new Date(reactor.modified_at).toLocaleString()}</>}
        </p>
      )}
      {reactor?.waiting && <p className="status-warn">The last change is not live yet: {reactor.waiting}. The version before it answers reacts.</p>}
      <TextField label="Name" path="name" value={draft.name} problems={problems} onChange={(name) => edit({ name })} />
      <RuntimeFields of="the code" runtime={draft} change={edit} timeout={{ max: draft.async ? 900 : 30, invalid: invalidProps(problems, 'runtime.timeout') }}>
        <label className="proxy-check">
          <input type="checkbox" checked={draft.async} onChange={(event) => edit({ async: event.target.checked })} />
          <span>Async: react-async may run up to 900 s</span>
        </label>
        <label>
          <span>Permissions of the code's key</span>
          <input type="text" spellCheck={false} placeholder="token:read, token:create" value={draft.permissions} onChange={(event) => edit({ permissions: event.target.value })} {...invalidProps(problems, 'runtime.permissions')} />
        </label>
      </RuntimeFields>
      <FieldProblem problems={problems} path="runtime.timeout" />
      <FieldProblem problems={problems} path="runtime.permissions" />
      <CodeField code={draft.code} image={draft.image} templates={{ of: 'reactor', code: REACTOR_TEMPLATES }} label="Code" onChange={(code) => edit({ code })} onSave={() => void submit()} readOnly={false} />
      <FieldProblem problems={problems} path="code" />
      <ApplicationField
        value={draft.application_id}
        onChange={(application_id) => edit({ application_id })}
        none={draft.image === 'node22' ? 'None: node22 code takes the permissions above' : 'None: the code gets no bt client'}
        problems={problems}
      />
      <ConfigurationField rows={draft.configuration} onChange={(configuration) => edit({ configuration })} problems={problems} readOnly={false} hint={<>Code reads these as <code>{draft.image === 'node22' ? 'event.configuration' : 'req.configuration'}</code>.</>} />
      <Alert message={unplaced(problems, PLACED)} />
      <DefinitionActions
        one="reactor"
        name={reactor?.name ?? null}
        saving={saving}
        warning={<p>Reacts to it answer 404 from then on. History keeps its past calls. This cannot be undone.</p>}
        remove={() => api.deleteReactor({ id: reactor!.id })}
        removed={async () => {
          await useReactorsStore.refresh(api);
          onDeleted(`Deleted reactor “${reactor!.name}”.`);
        }}
      />
    </form>
  );
}
