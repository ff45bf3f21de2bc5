import { useMemo } from 'react';
import { COMPOSER_METHODS } from '../../../../shared/workbench/collection-contract';
import type { ProxyView } from '../../../../shared/workbench/proxy-contract';
import { expressionAssist } from '../composer/expression-assist';
import { useEngineFlags } from '../composer/engine-flags';
import { RowsTable } from '../composer/RowsTable';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { CodeEditor, type EditorDiagnostics } from '../../components/CodeEditor';
import { PipelineTrace } from '../../components/PipelineTrace';
import { TrySend, useTryAs } from './TryOutcome';
import type { HeaderRow } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';
import { randomId } from '../../api/random-id';

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

/**
 * The engine's flags on the sample's body, as the Composer's editor shows them: the sample checked as a request
 * through the proxy to this proxy's destination, as the chosen application.
 */
function useSampleChecks(sample: Sample, proxy: ProxyView, applicationId: string | null): EditorDiagnostics | null {
  const prefix = useHeaderPrefix();
  const wire = wireOf(sample);
  const headers: [string, string][] = [...wire.headers, [`${prefix}-PROXY-URL`, proxy.destination_url]];
  return useEngineFlags({ application_id: applicationId, target_id: null, ...wire, path: `/proxy${wire.path}`, headers }, sample.body);
}

/**
 * Try: a sample request sent through the saved proxy as one of the applications, with the Composer's body editor
 * (token completion, the engine's flags), then the pipeline trace of that very call.
 */
export function TryProxy({ proxy, sample, onSample }: { proxy: ProxyView; sample: Sample; onSample: (sample: Sample) => void }) {
  const api = useWorkbenchApi();
  const tried = useTryAs('send as');
  const { callers, application, choose } = tried;
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
  const send = () => tried.send((application_id) => api.tryProxy({ request_id: randomId(), id: proxy.id, application_id, ...wireOf(sample) }));
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
      <TrySend tried={tried} label="Send through the proxy" working="Sending…" send={() => void send()} trace={(entry) => entry.proxy && <PipelineTrace entry={entry} details={entry.proxy} />} />
    </section>
  );
}
