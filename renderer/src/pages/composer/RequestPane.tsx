import { useEffect, useMemo, useRef } from 'react';
import { COMPOSER_METHODS } from '../../../../shared/workbench/contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { CodeEditor, type CodeEditorHandle, type EditorLanguage, type MarkedRange } from '../../components/CodeEditor';
import { Tabs } from '../../components/Tabs';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { useComposerStore, type BodyMode, type ComposerMethod, type HeaderRow, type RequestKind, type ServiceHeader } from '../../state/composer-store';
import { useEngineStore, useHeaderPrefix } from '../../state/engine-store';
import { IS_MAC } from '../../components/keys';
import { cancelComposed, sendComposed } from './composer-actions';
import { useResponseState } from './response-state';
import { BODY_TYPES, queryOf, SERVICE_HEADERS, wireRequest, withQuery } from './wire-request';
import { Alert } from '../../components/Alert';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { expressionAssist } from './expression-assist';
import { assistContext } from './request-checks';
import { RequestFlags, TARGET_INPUT_ID, useBodyDiagnostics } from './RequestFlags';
import { CopyAsCode } from './CopyAsCode';
import { EnvironmentSwitch } from './EnvironmentSwitch';
import { RemoteTargets, SendTo } from './RemoteTargets';
import { WorkbenchKey } from './WorkbenchKey';
import { remoteTargetToUse, useRemoteTargetsStore } from '../../state/remote-targets-store';

const KINDS: Record<RequestKind, string> = { proxy: 'Through the proxy', api: 'Vault API' };
const BODY_MODES: Record<BodyMode, { label: string; language: EditorLanguage }> = {
  json: { label: 'JSON', language: 'json' },
  form: { label: 'Form', language: 'text' },
  text: { label: 'Text', language: 'text' },
  xml: { label: 'XML', language: 'xml' },
  none: { label: 'None', language: 'text' },
};

function KindSwitch() {
  const kind = useComposerStore((state) => state.draft.kind);
  const edit = useComposerStore((state) => state.edit);
  return (
    <fieldset className="segments">
      <legend className="visually-hidden">Request kind</legend>
      {(Object.keys(KINDS) as RequestKind[]).map((option) => (
        <label key={option}>
          <input type="radio" name="request-kind" checked={kind === option} onChange={() => edit({ kind: option, target: '' })} />
          {KINDS[option]}
        </label>
      ))}
    </fieldset>
  );
}

function RequestLine() {
  const api = useWorkbenchApi();
  const draft = useComposerStore((state) => state.draft);
  const sending = useComposerStore((state) => state.sending);
  const edit = useComposerStore((state) => state.edit);
  const proxied = draft.kind === 'proxy';
  return (
    <div className="request-line">
      <select aria-label="Method" value={draft.method} onChange={(event) => edit({ method: event.target.value as ComposerMethod })}>
        {COMPOSER_METHODS.map((method) => (
          <option key={method}>{method}</option>
        ))}
      </select>
      <input
        type="text"
        id={TARGET_INPUT_ID}
        aria-label={proxied ? 'Destination URL' : 'Path'}
        placeholder={proxied ? 'Destination URL: https://api.example.com/v1/charges' : 'Path: /tokens'}
        spellCheck={false}
        value={draft.target}
        onChange={(event) => edit({ target: event.target.value })}
      />
      <EnvironmentSwitch />
      {sending ? (
        <button type="button" className="cancel" onClick={() => cancelComposed(api)} aria-keyshortcuts="Escape">
          Cancel <kbd>Esc</kbd>
        </button>
      ) : (
        <button type="button" className="primary" onClick={() => void sendComposed(api)} aria-keyshortcuts="Control+Enter Meta+Enter">
          Send <kbd>{IS_MAC ? '⌘↵' : 'Ctrl+↵'}</kbd>
        </button>
      )}
    </div>
  );
}

/** Who the request is sent as, and the key the workbench keeps for it. */
function SendAs() {
  const applications = useApplicationsStore((state) => state.applications);
  const problem = useApplicationsStore((state) => state.problem);
  const chosen = useComposerStore((state) => state.applicationId);
  const choose = useComposerStore((state) => state.chooseApplication);
  const live = useEngineStore((state) => state.connection === 'live');
  const application = applicationToUse(applications, chosen);
  const targetId = useComposerStore((state) => state.targetId);
  const remote = remoteTargetToUse(useRemoteTargetsStore((state) => state.targets), targetId);
  // Without the engine the shell says why; this would only say it again.
  if (!live && !applications) return <p className="muted">The applications to send as are listed once the engine is connected.</p>;
  if (problem) return <Alert message={`Could not list the applications: ${problem}`} />;
  if (!applications) return <p className="muted">Listing applications…</p>;
  if (remote) {
    return (
      <div className="send-as">
        <SendTo />
      </div>
    );
  }
  return (
    <div className="send-as">
      <SendTo />
      <ApplicationSelect label="Send as" applications={applications} value={application?.id ?? ''} onChange={choose} />
      {application && <WorkbenchKey application={application} />}
    </div>
  );
}

/** Name and value rows; a blank row at the end takes the next one. */
function RowsTable({
  label,
  rows,
  onChange,
  switchable,
}: {
  label: string;
  rows: readonly HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  switchable: boolean;
}) {
  const shown = [...rows, { name: '', value: '', enabled: true }];
  const change = (at: number, patch: Partial<HeaderRow>) => {
    const next = shown.map((row, i) => (i === at ? { ...row, ...patch } : row));
    onChange(next.filter((row, i) => i < rows.length || row.name !== '' || row.value !== ''));
  };
  return (
    <table className="rows-table" aria-label={label}>
      <thead>
        <tr>
          {switchable && <th scope="col">Send</th>}
          <th scope="col">Name</th>
          <th scope="col">Value</th>
          <th scope="col">
            <span className="visually-hidden">Remove</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {shown.map((row, i) => {
          const blank = i === rows.length;
          const which = blank ? `new ${label.toLowerCase()} row` : `${label.toLowerCase()} ${row.name || i + 1}`;
          return (
            <tr key={i} className={row.enabled ? undefined : 'switched-off'}>
              {switchable && (
                <td>
                  {!blank && <input type="checkbox" aria-label={`Send ${which}`} checked={row.enabled} onChange={(e) => change(i, { enabled: e.target.checked })} />}
                </td>
              )}
              <td>
                <input type="text" aria-label={`Name of ${which}`} spellCheck={false} value={row.name} onChange={(e) => change(i, { name: e.target.value })} />
              </td>
              <td>
                <input type="text" aria-label={`Value of ${which}`} spellCheck={false} value={row.value} onChange={(e) => change(i, { value: e.target.value })} />
              </td>
              <td>
                {!blank && (
                  <button type="button" className="small" aria-label={`Remove ${which}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                    ×
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function QueryTable() {
  const target = useComposerStore((state) => state.draft.target);
  const edit = useComposerStore((state) => state.edit);
  const rows = queryOf(target).map(([name, value]) => ({ name, value, enabled: true }));
  return (
    <RowsTable
      label="Query"
      rows={rows}
      switchable={false}
      onChange={(next) => edit({ target: withQuery(target, next.map(({ name, value }): [string, string] => [name, value])) })}
    />
  );
}

function ServiceHeaders() {
  const service = useComposerStore((state) => state.draft.service);
  const kind = useComposerStore((state) => state.draft.kind);
  const edit = useComposerStore((state) => state.edit);
  const prefix = useHeaderPrefix();
  const fields = (Object.keys(SERVICE_HEADERS) as ServiceHeader[]).filter(
    (field) => kind === 'proxy' || (field !== 'keepAlive' && field !== 'connection'),
  );
  return (
    <div className="service-headers">
      {fields.map((field) => {
        const { suffix, label, meaning } = SERVICE_HEADERS[field];
        return (
          <label key={field}>
            <span>
              {label} <code>{`${prefix}-${suffix}`}</code>
            </span>
            <input type="text" spellCheck={false} value={service[field]} onChange={(e) => edit({ service: { ...service, [field]: e.target.value } })} />
            <small className="muted">{meaning}</small>
          </label>
        );
      })}
    </div>
  );
}

/** Every place in the body where the text a failure names stands. */
function rangesOf(body: string, text: string | null): MarkedRange[] {
  if (!text) return [];
  const ranges: MarkedRange[] = [];
  for (let at = body.indexOf(text); at !== -1; at = body.indexOf(text, at + text.length)) ranges.push({ from: at, to: at + text.length });
  return ranges;
}

function Body({ marked }: { marked: readonly MarkedRange[] }) {
  const api = useWorkbenchApi();
  const body = useComposerStore((state) => state.draft.body);
  const mode = useComposerStore((state) => state.draft.bodyMode);
  const edit = useComposerStore((state) => state.edit);
  const pointAt = useComposerStore((state) => state.pointAt);
  const selectBody = useComposerStore((state) => state.selectBody);
  const editor = useRef<CodeEditorHandle>(null);
  const assist = useMemo(() => expressionAssist(api, assistContext), [api]);
  const diagnostics = useBodyDiagnostics();
  useEffect(() => {
    if (pointAt) editor.current?.select(pointAt.from, pointAt.to);
  }, [pointAt]);
  return (
    <div className="body-editor">
      <label className="body-mode">
        Body
        <select value={mode} onChange={(event) => edit({ bodyMode: event.target.value as BodyMode })}>
          {(Object.keys(BODY_MODES) as BodyMode[]).map((option) => (
            <option key={option} value={option}>
              {BODY_MODES[option].label}
            </option>
          ))}
        </select>
        {BODY_TYPES[mode] && <span className="muted">sent as {BODY_TYPES[mode]} unless a header says otherwise</span>}
      </label>
      {mode !== 'none' && (
        <CodeEditor
          ref={editor}
          label="Request body"
          value={body}
          language={BODY_MODES[mode].language}
          onChange={(value) => edit({ body: value })}
          onSubmit={() => void sendComposed(api)}
          onEscape={() => {
            if (!useComposerStore.getState().sending) return false;
            cancelComposed(api);
            return true;
          }}
          marked={marked}
          onSelectionChange={selectBody}
          extensions={assist}
          diagnostics={diagnostics}
        />
      )}
    </div>
  );
}

/** The request as the service will receive it, in one line: what the draft turns into. */
function WirePreview() {
  const draft = useComposerStore((state) => state.draft);
  const prefix = useHeaderPrefix();
  const wire = wireRequest(draft, prefix);
  if (typeof wire === 'string') return null;
  const proxyUrl = wire.headers.find(([name]) => name === `${prefix}-PROXY-URL`)?.[1];
  return (
    <p className="wire-preview muted">
      Sends <code>{`${wire.method} ${wire.path}`}</code>
      {proxyUrl && (
        <>
          {' '}
          with <code>{`${prefix}-PROXY-URL: ${proxyUrl}`}</code>
        </>
      )}
    </p>
  );
}

/**
 * What the last answer points at in the body, while the body is still the one that was sent: the text a failed proxy
 * request named, or the expressions it sent empty.
 */
function useMarked(): readonly MarkedRange[] {
  const state = useResponseState();
  const result = useComposerStore((composer) => composer.result);
  const body = useComposerStore((composer) => composer.draft.body);
  return useMemo(() => {
    if (result?.kind !== 'exchange' || result.sentBody !== body) return [];
    if (state?.kind === 'proxy') return rangesOf(body, state.culprit);
    return state?.kind === 'destination' ? state.empty.map(({ from, to }) => ({ from, to })) : [];
  }, [state, result, body]);
}

export function RequestPane() {
  const tab = useComposerStore((state) => state.requestTab);
  const setTab = useComposerStore((state) => state.showRequestTab);
  const headers = useComposerStore((state) => state.draft.headers);
  const target = useComposerStore((state) => state.draft.target);
  const invalid = useComposerStore((state) => state.invalid);
  const notice = useComposerStore((state) => state.notice);
  const edit = useComposerStore((state) => state.edit);
  const marked = useMarked();
  const queryCount = queryOf(target).length;
  const headerCount = headers.filter((row) => row.enabled).length;
  return (
    <section className="panel composer" aria-labelledby="request-title">
      <div className="composer-head">
        <h2 id="request-title">Request</h2>
        <KindSwitch />
      </div>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      <RequestLine />
      <Alert message={invalid} />
      <WirePreview />
      <CopyAsCode />
      <SendAs />
      <RemoteTargets />
      <Tabs
        label="Request parts"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'body', label: 'Body', panel: () => <Body marked={marked} /> },
          {
            id: 'query',
            label: (
              <>
                Query<span className="tab-count">{queryCount || ''}</span>
              </>
            ),
            panel: () => <QueryTable />,
          },
          {
            id: 'headers',
            label: (
              <>
                Headers<span className="tab-count">{headerCount || ''}</span>
              </>
            ),
            panel: () => (
              <>
                <RowsTable label="Headers" rows={headers} switchable onChange={(rows) => edit({ headers: rows })} />
                <p className="muted rows-hint">
                  Write a credential as <code>{'${secret:NAME}'}</code> (Settings, under Secrets), and a value that changes between environments as{' '}
                  <code>{'${env:NAME}'}</code>: the engine puts their values in as the request leaves. Save… moves a credential written in plain text into
                  Secrets.
                </p>
              </>
            ),
          },
          { id: 'service', label: 'Service headers', panel: () => <ServiceHeaders /> },
        ]}
      />
      <RequestFlags />
    </section>
  );
}
