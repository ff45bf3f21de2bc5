import { useEffect, useRef, useState } from 'react';
import type { ProxyView } from '../../../../shared/workbench/proxy-contract';
import { WorkbenchError } from '../../../../shared/workbench/transport';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { IS_MAC, shortcutLabel } from '../../components/keys';
import { useApplicationsStore } from '../../state/applications-store';
import { useProxiesStore } from '../../state/proxies-store';
import { RowsTable } from '../composer/RowsTable';
import { FieldProblem, invalidProps, type FieldProblems } from './FieldProblem';
import { definitionOf, draftOf, sameDraft, type ProxyDraft } from './proxy-draft';
import { TransformList } from './TransformList';

const NONE: FieldProblems = {};

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

/** The refusals no field of the form shows (a path the page does not know), said once above the buttons. */
function unplaced(problems: FieldProblems): string | null {
  const known = /^(name|destination_url|application\.id|application_id|configuration.*|(request|response)_transforms(\[\d+\].*)?)$/;
  const rest = Object.entries(problems).filter(([path]) => !known.test(path));
  return rest.length === 0 ? null : rest.map(([path, said]) => `${path}: ${said.join(' ')}`).join(' ');
}

/** How many problems the engine named, as the sentence above the buttons starts. */
const counted = (problems: FieldProblems) => Object.values(problems).reduce((n, said) => n + said.length, 0);

/**
 * A proxy's definition as a form: name, destination, who may call it, its application, configuration and transforms.
 * Saving sends it whole (PUT); what the engine refuses is said at the field it names, and the focus goes to the first.
 */
export function ProxyEditor({
  proxy,
  onSaved,
  onDeleted,
  onChanged,
}: {
  proxy: ProxyView | null;
  onSaved: (proxy: ProxyView, said: string) => void;
  onDeleted: (said: string) => void;
  /** Whether the form now differs from what the engine keeps (or, for a new proxy, from an empty form). */
  onChanged: (changed: boolean) => void;
}) {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value);
  const [initial] = useState<ProxyDraft>(() => draftOf(proxy));
  const [draft, setDraft] = useState<ProxyDraft>(initial);
  const changed = !sameDraft(draft, initial);
  useEffect(() => onChanged(changed), [changed, onChanged]);
  const [problems, setProblems] = useState<FieldProblems>(NONE);
  const [confirming, setConfirming] = useState(false);
  const save = useEngineCall();
  const remove = useEngineCall();
  const form = useRef<HTMLFormElement>(null);
  const edit = (patch: Partial<ProxyDraft>) => setDraft((before) => ({ ...before, ...patch }));

  // After a refusal, the first field it names takes the focus, so the user reads what is wrong where to fix it.
  useEffect(() => {
    if (problems === NONE) return;
    form.current?.querySelector<HTMLElement>('[aria-invalid="true"], p.problem[id^="proxy-problem-"]')?.focus();
  }, [problems]);

  const submit = () =>
    save.run(async () => {
      const made = definitionOf(draft);
      if ('problems' in made) return setProblems(made.problems);
      setProblems(NONE);
      try {
        const saved = proxy ? await api.updateProxy({ id: proxy.id, ...made.definition }) : await api.createProxy(made.definition);
        await useProxiesStore.refresh(api);
        onSaved(saved, `${proxy ? 'Saved' : 'Created'} proxy “${saved.name}”.`);
      } catch (error) {
        const said = error instanceof WorkbenchError ? error.problem.errors : undefined;
        if (!said) throw error;
        setProblems(said);
        throw new Error(`The engine refused ${counted(said) === 1 ? 'a field' : `${counted(said)} fields`}: each is said where it is. Fix ${counted(said) === 1 ? 'it' : 'them'} and save again.`, {
          cause: error,
        });
      }
    });
  const destroy = (target: ProxyView) =>
    remove.run(async () => {
      await api.deleteProxy({ id: target.id });
      setConfirming(false);
      await useProxiesStore.refresh(api);
      onDeleted(`Deleted proxy “${target.name}”: its key no longer works.`);
    });

  const choices = (applications ?? []).filter((application) => application.type !== 'management');
  // A proxy of the proxies folder is its file's: shown, not edited (the engine refuses any change but the file's).
  const file = proxy?.file;
  const readOnly = file !== undefined;
  const title = proxy ? `Proxy “${proxy.name}”` : 'New proxy';
  return (
    <form
      ref={form}
      className="proxy-editor"
      aria-label={title}
      onSubmit={(event) => {
        event.preventDefault();
        if (!readOnly) void submit();
      }}
      onKeyDown={(event) => {
        if (!readOnly && event.key.toLowerCase() === 's' && (IS_MAC ? event.metaKey : event.ctrlKey) && !event.altKey && !event.shiftKey) {
          event.preventDefault();
          void submit();
        }
      }}
    >
      <h2 id="proxy-editor-title">{title}</h2>
      {proxy && (
        <p className="muted proxy-hint">
          Key …{proxy.key_last4} · {proxy.state} · made {new Date(proxy.created_at).toLocaleString()}
          {proxy.modified_at && <> · changed {new Date(proxy.modified_at).toLocaleString()}</>}
        </p>
      )}
      {file && <FileNote file={file} />}
      <fieldset className="proxy-fields" disabled={readOnly}>
        <div className="proxy-field">
          <label>
            <span>Name</span>
            <input type="text" value={draft.name} onChange={(event) => edit({ name: event.target.value })} {...invalidProps(problems, 'name')} />
          </label>
          <FieldProblem problems={problems} path="name" />
        </div>
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
        <div className="proxy-field">
          <ApplicationSelect
            label="Application"
            applications={choices}
            value={draft.application_id}
            onChange={(application_id) => edit({ application_id })}
            none="None: code gets no bt client"
            aria={invalidProps(problems, 'application.id')}
          />
          <FieldProblem problems={problems} path="application.id" />
        </div>
        <fieldset className="proxy-configuration" aria-label="Configuration">
          <legend>Configuration</legend>
          <p className="muted proxy-hint">
            Code reads these as <code>configuration</code>, header expressions as <code>proxy.config</code>. Stored sealed; names of letters, digits and _.
          </p>
          <RowsTable label="Configuration" rows={draft.configuration} onChange={(configuration) => edit({ configuration })} switchable={false} readOnly={readOnly} />
          {Object.keys(problems)
            .filter((path) => path.startsWith('configuration'))
            .map((path) => (
              <FieldProblem key={path} problems={problems} path={path} />
            ))}
        </fieldset>
        <TransformList side="request" transforms={draft.request} problems={problems} onChange={(request) => edit({ request })} onSave={() => void submit()} readOnly={readOnly} />
        <TransformList side="response" transforms={draft.response} problems={problems} onChange={(response) => edit({ response })} onSave={() => void submit()} readOnly={readOnly} />
      </fieldset>
      <Alert message={unplaced(problems)} />
      <Alert message={save.problem} />
      {!readOnly && (
        <div className="proxy-actions">
          <button type="submit" className="primary" disabled={save.busy} aria-keyshortcuts={IS_MAC ? 'Meta+S' : 'Control+S'}>
            {proxy ? 'Save proxy' : 'Create proxy'} <kbd>{shortcutLabel('S')}</kbd>
          </button>
          {proxy && (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Delete proxy…
            </button>
          )}
        </div>
      )}
      {proxy && confirming && (
        <ConfirmDialog
          title={`Delete proxy “${proxy.name}”?`}
          confirm="Delete proxy"
          busy={remove.busy}
          problem={remove.problem}
          onConfirm={() => void destroy(proxy)}
          onClose={() => setConfirming(false)}
        >
          <p>Its key (…{proxy.key_last4}) stops working at once: clients calling it get a 400. History keeps its past calls. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </form>
  );
}
