import type { ProxyDefinitionInput, ProxyView } from '../../../../shared/workbench/proxy-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { DefinitionActions, unplaced, useDefinitionDraft, type EditorEvents } from '../../components/definition-form';
import { FieldProblem, invalidProps, TextField } from '../../components/FieldProblem';
import { useProxiesStore } from '../../state/proxies-store';
import { PROXY_DRAFTS } from './proxy-draft';
import { ApplicationField } from './ApplicationField';
import { ConfigurationField } from './ConfigurationField';
import { TransformList } from './TransformList';

/** Where a file proxy comes from and how to change it, and what is wrong with its file now. */
function FileNote({ file }: { file: NonNullable<ProxyView['file']> }) {
  return (
    <div className="proxy-file-note">
      <p>
        Loaded from <code>{file.path}</code> in the proxies folder: edit the file to change it.
      </p>
      {file.problems && <p className="problem">The file has a problem; the last good version is serving: {file.problems.join('; ')}</p>}
      {file.warnings && <p className="status-warn">The file loads with warnings: {file.warnings.join('; ')}</p>}
    </div>
  );
}

/** The fields the form places the engine's refusals at. */
const PLACED = /^(name|destination_url|application\.id|application_id|configuration.*|(request|response)_transforms(\[\d+\].*)?)$/;

/**
 * A proxy's definition as a form: name, destination, who may call it, its application, configuration and transforms.
 * Saving sends it whole (PUT); what the engine refuses is said at the field it names, and the focus goes to the first.
 */
export function ProxyEditor({ proxy, onSaved, onDeleted, onChanged }: { proxy: ProxyView | null } & EditorEvents<ProxyView>) {
  const api = useWorkbenchApi();
  const save = (definition: ProxyDefinitionInput) => (proxy ? api.updateProxy({ id: proxy.id, ...definition }) : api.createProxy(definition));
  const { draft, edit, problems, saving, submit, formProps } = useDefinitionDraft('proxy', proxy, PROXY_DRAFTS, { save, refresh: () => useProxiesStore.refresh(api) }, { onSaved, onChanged });

  // A proxy of the proxies folder is its file's: shown, not edited (the engine refuses any change but the file's).
  const file = proxy?.file;
  const readOnly = file !== undefined;
  const title = proxy ? `Proxy “${proxy.name}”` : 'New proxy';
  return (
    <form className="proxy-editor" aria-label={title} {...formProps(() => void submit(), readOnly)}>
      <h2 id="proxy-editor-title">{title}</h2>
      {proxy && (
        <p className="muted proxy-hint">
          Key …{proxy.key_last4} · {proxy.state} · made {new Date(proxy.created_at).toLocaleString()}
          {proxy.modified_at && <> · changed {new Date(proxy.modified_at).toLocaleString()}</>}
        </p>
      )}
      {file && <FileNote file={file} />}
      <fieldset className="proxy-fields" disabled={readOnly}>
        <TextField label="Name" path="name" value={draft.name} problems={problems} onChange={(name) => edit({ name })} />
        <div className="proxy-field">
          <label>
            <span>Destination URL</span>
            <input
              type="text"
              inputMode="url"
              spellCheck={false}
              placeholder="https://api.example.com/v1"
              value={draft.destination_url}
              onChange={(event) => edit({ destination_url: event.target.value })}
              {...invalidProps(problems, 'destination_url')}
            />
          </label>
          <p className="muted proxy-hint">A call to /proxy/charges goes to this URL followed by /charges, with the query.</p>
          <FieldProblem problems={problems} path="destination_url" />
        </div>
        <div className="proxy-inline">
          <label className="proxy-check">
            <input type="checkbox" checked={draft.require_auth} onChange={(event) => edit({ require_auth: event.target.checked })} />
            <span>Require an API key (a private application with proxy:invoke)</span>
          </label>
          <label className="proxy-check">
            <input type="checkbox" checked={draft.disable_detokenization} onChange={(event) => edit({ disable_detokenization: event.target.checked })} />
            <span>Send expressions as written (no detokenization)</span>
          </label>
        </div>
        <ApplicationField value={draft.application_id} onChange={(application_id) => edit({ application_id })} none="None: code gets no bt client" problems={problems} />
        <ConfigurationField
          rows={draft.configuration}
          onChange={(configuration) => edit({ configuration })}
          problems={problems}
          readOnly={readOnly}
          hint={
            <>
              Code reads these as <code>configuration</code>, header expressions as <code>proxy.config</code>.
            </>
          }
        />
        <TransformList side="request" transforms={draft.request} problems={problems} onChange={(request) => edit({ request })} onSave={() => void submit()} readOnly={readOnly} />
        <TransformList side="response" transforms={draft.response} problems={problems} onChange={(response) => edit({ response })} onSave={() => void submit()} readOnly={readOnly} />
      </fieldset>
      <Alert message={unplaced(problems, PLACED)} />
      {!readOnly && (
        <DefinitionActions
          one="proxy"
          name={proxy?.name ?? null}
          saving={saving}
          warning={<p>Its key (…{proxy?.key_last4}) stops working at once: clients calling it get a 400. History keeps its past calls. This cannot be undone.</p>}
          remove={() => api.deleteProxy({ id: proxy!.id })}
          removed={async () => {
            await useProxiesStore.refresh(api);
            onDeleted(`Deleted proxy “${proxy!.name}”: its key no longer works.`);
          }}
        />
      )}
    </form>
  );
}
