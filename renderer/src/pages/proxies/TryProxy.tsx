import { useEffect, useMemo, useState } from 'react';
import { COMPOSER_METHODS } from '../../../../shared/workbench/collection-contract';
import type { Exchange } from '../../../../shared/workbench/composer-contract';
import type { ProxyView } from '../../../../shared/workbench/proxy-contract';
import { draftChecker } from '../composer/checked-draft';
import { expressionAssist } from '../composer/expression-assist';
import { bodyDiagnostics } from '../composer/RequestFlags';
import { bodyBytes, bodyText } from '../composer/response-state';
import { RowsTable } from '../composer/RowsTable';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { AnswerBanner } from '../../components/AnswerBanner';
import { answerSourceOf } from '../../components/answer-source';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { BodyViewer } from '../../components/BodyViewer';
import { CodeEditor, type EditorDiagnostics } from '../../components/CodeEditor';
import { formatMs } from '../../components/format';
import { HeaderList } from '../../components/HeaderList';
import { PipelineTrace } from '../../components/PipelineTrace';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import type { HeaderRow } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';

/** The sample request Try sends, and the invocation snippet writes as code. */
export interface Sample {
  method: (typeof COMPOSER_METHODS)[number];
  /** What follows /proxy, with the query. */
  path: string;
  headers: HeaderRow[];
  body: string;
}

export const FIRST_SAMPLE: Sample = {
  method: 'POST',
  path: '/',
  headers: [{ name: 'Content-Type', value: 'application/json', enabled: true }],
  body: '{\n  "amount": 100\n}',
};

/** The sample as it goes on the wire: the headers switched on, no body for a GET. */
export const wireOf = (sample: Sample) => ({
  method: sample.method,
  path: sample.path.startsWith('/') ? sample.path : `/${sample.path}`,
  headers: sample.headers.filter((row) => row.enabled && row.name !== '').map((row): [string, string] => [row.name, row.value]),
  body: sample.method === 'GET' || sample.body === '' ? null : sample.body,
});

/** How long typing waits before the body is checked again. */
const CHECK_AFTER_MS = 300;

/**
 * The engine's flags on the sample's body, as the Composer's editor shows them: the sample checked as a request
 * through the proxy to this proxy's destination, as the chosen application.
 */
function useSampleChecks(sample: Sample, proxy: ProxyView, applicationId: string | null): EditorDiagnostics | null {
  const api = useWorkbenchApi();
  const prefix = useHeaderPrefix();
  const check = useMemo(() => draftChecker(api.checkRequest), [api]);
  const [diagnostics, setDiagnostics] = useState<EditorDiagnostics | null>(null);
  useEffect(() => {
    const wire = wireOf(sample);
    if (wire.body === null) return;
    const timer = setTimeout(() => {
      const headers: [string, string][] = [...wire.headers, [`${prefix}-PROXY-URL`, proxy.destination_url]];
      check({ application_id: applicationId, target_id: null, ...wire, path: `/proxy${wire.path}`, headers }).then(
        (result) => setDiagnostics(bodyDiagnostics({ body: wire.body, result })),
        () => setDiagnostics(null),
      );
    }, CHECK_AFTER_MS);
    return () => clearTimeout(timer);
  }, [check, sample, proxy.destination_url, applicationId, prefix]);
  return diagnostics;
}

/** What came back: who answered, the pipeline step by step, and the answer as the client got it. */
function TryOutcome({ exchange }: { exchange: Exchange }) {
  const prefix = useHeaderPrefix();
  const { outcome, entry } = exchange;
  if (outcome.kind === 'cancelled') return <p className="muted">Cancelled.</p>;
  if (outcome.kind === 'unreachable') return <Alert message={`The engine could not be reached (${outcome.code ?? outcome.detail}): is it still running?`} />;
  return (
    <div className="proxy-try-outcome">
      <p className="proxy-try-status" role="status">
        <strong>
          {outcome.status} {outcome.status_text}
        </strong>{' '}
        in {formatMs(exchange.duration_ms)}
      </p>
      {entry && <AnswerBanner answer={answerSourceOf(entry, prefix)} />}
      {entry?.proxy && <PipelineTrace entry={entry} details={entry.proxy} />}
      <section aria-labelledby="proxy-try-answer">
        <h3 id="proxy-try-answer">Answer to the client</h3>
        <HeaderList headers={outcome.headers} testId="proxy-try-headers" />
        <BodyViewer bytes={bodyBytes(outcome)} text={bodyText(outcome)} totalBytes={outcome.bytes} label="Answer body" />
      </section>
    </div>
  );
}

/**
 * Try: a sample request sent through the saved proxy as one of the applications, with the Composer's body editor
 * (token completion, the engine's flags), then the pipeline trace of that very call.
 */
export function TryProxy({ proxy, sample, onSample }: { proxy: ProxyView; sample: Sample; onSample: (sample: Sample) => void }) {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value);
  const [chosen, choose] = useState<string | null>(null);
  const callers = useMemo(() => (applications ?? []).filter((application) => application.type === 'private'), [applications]);
  const application = applicationToUse(callers, chosen);
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const { busy, problem, run } = useEngineCall();
  const diagnostics = useSampleChecks(sample, proxy, application?.id ?? null);
  const assist = useMemo(
    () =>
      expressionAssist(api, () => ({
        applicationId: application?.id ?? null,
        contentType: sample.headers.find((row) => row.name.toLowerCase() === 'content-type')?.value ?? null,
        remote: null,
      })),
    [api, application, sample.headers],
  );
  const edit = (patch: Partial<Sample>) => onSample({ ...sample, ...patch });
  const send = () =>
    run(async () => {
      if (!application) throw new Error('No private application to send as: create one in Settings, then try again.');
      setExchange(null);
      setExchange(await api.tryProxy({ request_id: crypto.randomUUID(), id: proxy.id, application_id: application.id, ...wireOf(sample) }));
    });
  return (
    <section className="panel proxy-try" aria-labelledby="proxy-try-title">
      <h2 id="proxy-try-title">Try</h2>
      <p className="muted proxy-hint">Sends this request to /proxy{wireOf(sample).path} with the proxy's key, as the application you choose; History records it too.</p>
      <div className="proxy-inline">
        {application && <ApplicationSelect label="Send as" applications={callers} value={application.id} onChange={choose} />}
        <label>
          <span>Method</span>
          <select value={sample.method} onChange={(event) => edit({ method: event.target.value as Sample['method'] })}>
            {COMPOSER_METHODS.map((method) => (
              <option key={method}>{method}</option>
            ))}
          </select>
        </label>
        <label className="proxy-try-path">
          <span>Path after /proxy</span>
          <input type="text" spellCheck={false} value={sample.path} onChange={(event) => edit({ path: event.target.value })} />
        </label>
      </div>
      <RowsTable label="Headers" rows={sample.headers} onChange={(headers) => edit({ headers })} switchable />
      {sample.method !== 'GET' && (
        <CodeEditor
          label="Sample request body"
          value={sample.body}
          language="json"
          onChange={(body) => edit({ body })}
          onSubmit={() => void send()}
          extensions={assist}
          diagnostics={diagnostics}
        />
      )}
      <p className="muted proxy-hint">Ctrl+Space completes a token id by its mask; flags on the body are the engine's, as in the Composer.</p>
      <div className="proxy-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void send()} aria-keyshortcuts="Control+Enter Meta+Enter">
          {busy ? 'Sending…' : 'Send through the proxy'}
        </button>
      </div>
      <Alert message={problem} />
      {exchange && <TryOutcome exchange={exchange} />}
    </section>
  );
}
