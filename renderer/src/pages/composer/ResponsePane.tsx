import { useRef, useState, type ReactNode } from 'react';
import type { Exchange } from '../../../../shared/workbench/composer-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { BodyView, keptPartOnly } from '../../components/BodyView';
import { BodyViewer } from '../../components/BodyViewer';
import { formatBytes, formatMs, lineAt } from '../../components/format';
import { HeaderList } from '../../components/HeaderList';
import { OutboundBody } from '../../components/OutboundBody';
import { Tabs } from '../../components/Tabs';
import { useApplicationsStore } from '../../state/applications-store';
import { useComposerStore, type ComposerResult } from '../../state/composer-store';
import { useEngineStore } from '../../state/engine-store';
import { useAnswerReveal } from './AnswerReveal';
import { cancelComposed, startWithTestCard } from './composer-actions';
import { bodyBytes, bodyText, useResponseState, type EmptyExpression, type ProblemBody, type ResponseState } from './response-state';
import { Alert } from '../../components/Alert';
import { useAnswerArrival } from './answer-arrival';

type Received = Extract<Exchange['outcome'], { kind: 'response' }>;

const LABELS: Record<ResponseState['kind'], string> = {
  destination: 'Destination',
  proxy: 'Proxy error',
  api: 'Vault API',
  unreachable: 'Not reached',
  cancelled: 'Cancelled',
};

/** Status, reason, time and size, in one line: what a look at the answer should tell first. */
function MetaLine({ response, durationMs, tone }: { response: Received; durationMs: number | null; tone: string }) {
  return (
    <p className="meta-line">
      <span className={`status-chip tone-${tone}`}>
        {response.status} {response.status_text}
      </span>
      {durationMs !== null && <span>{formatMs(durationMs)}</span>}
      <span>{formatBytes(response.bytes)}</span>
    </p>
  );
}

function ProblemDetails({ problem }: { problem: ProblemBody | null }) {
  if (!problem) return null;
  return (
    <>
      {problem.detail && <p className="problem-detail">{problem.detail}</p>}
      {problem.errors && (
        <ul className="problem-errors">
          {Object.entries(problem.errors).map(([field, messages]) => (
            <li key={field}>
              <code>{field}</code>: {messages.join('; ')}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Advice({ advice }: { advice: string | null }) {
  if (!advice) return null;
  return (
    <p className="advice">
      <strong>What to do:</strong> {advice}
    </p>
  );
}

/**
 * The expressions the proxy wrote as nothing, from what the engine recorded as it sent the request: the answer looks
 * fine, and the request was not what it seemed. Each can be shown in the body while the body is the one sent.
 */
function SentEmpty({ empty, sentBody }: { empty: readonly EmptyExpression[]; sentBody: string | null }) {
  const point = useComposerStore((composer) => composer.point);
  const current = useComposerStore((composer) => composer.draft.body === sentBody);
  if (empty.length === 0 || sentBody === null) return null;
  return (
    <ul className="sent-empty" aria-label="Sent empty">
      {empty.map(({ expression, from, to }) => (
        <li key={from}>
          <strong>Sent empty:</strong> <code>{expression}</code> (body, line {lineAt(sentBody, from)}) wrote nothing, so the destination got no value there.{' '}
          {current && (
            <button type="button" className="small" onClick={() => point(from, to)}>
              Show it in the body
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The one card that says who answered, in words, colour and shape, and what to do next. */
function OutcomeCard({ state, result }: { state: ResponseState; result: ComposerResult }) {
  const point = useComposerStore((composer) => composer.point);
  const body = useComposerStore((composer) => composer.draft.body);
  const exchange = result.kind === 'exchange' ? result.exchange : null;
  const trace = exchange?.entry?.trace_id;
  let content: ReactNode;
  switch (state.kind) {
    case 'destination':
      content = (
        <>
          <strong className="outcome-title">{state.title}</strong>
          <MetaLine response={state.response} durationMs={exchange?.duration_ms ?? null} tone={state.tone} />
          <p>{state.explanation}</p>
          <SentEmpty empty={state.empty} sentBody={result.kind === 'exchange' ? result.sentBody : null} />
          <Advice advice={state.advice} />
        </>
      );
      break;
    case 'proxy': {
      const at = state.culprit ? body.indexOf(state.culprit) : -1;
      content = (
        <>
          <strong className="outcome-title">{state.title}</strong>
          <MetaLine response={state.response} durationMs={exchange?.duration_ms ?? null} tone="failed" />
          <ProblemDetails problem={state.problem} />
          <p>{state.reach}</p>
          <Advice advice={state.advice} />
          {at !== -1 && (
            <button type="button" className="small" onClick={() => point(at, at + state.culprit!.length)}>
              Show {state.culprit!.length > 16 ? 'the token' : state.culprit} in the body
            </button>
          )}
        </>
      );
      break;
    }
    case 'api':
      content = (
        <>
          <strong className="outcome-title">{state.title}</strong>
          <MetaLine response={state.response} durationMs={exchange?.duration_ms ?? null} tone={state.tone} />
          <ProblemDetails problem={state.problem} />
        </>
      );
      break;
    case 'unreachable':
      content = (
        <>
          <strong className="outcome-title">{state.title}</strong>
          <p>
            Tried <code>{state.tried}</code>
          </p>
          <p>What came back: {state.detail}</p>
          <Advice advice={state.advice} />
        </>
      );
      break;
    case 'cancelled':
      content = <strong className="outcome-title">Cancelled before the answer was complete</strong>;
      break;
  }
  return (
    <div className={`outcome outcome-${state.kind} ${'tone' in state ? `tone-${state.tone}` : ''}`} role="status" aria-label="Outcome">
      <span className="outcome-label">{LABELS[state.kind]}</span>
      {content}
      {trace && (
        <p className="history-link">
          <a href={`#/history?trace=${encodeURIComponent(trace)}`}>Open in History</a>
        </p>
      )}
    </div>
  );
}

/** What was sent: to Tokenbench as written, and, for a proxied request, what left for the destination (masked). */
function Sent({ exchange, sentBody }: { exchange: Exchange; sentBody: string | null }) {
  const entry = exchange.entry;
  const outbound = entry?.proxy?.outbound;
  return (
    <div className="sent">
      <h3>Sent to Tokenbench</h3>
      <p className="path">
        {exchange.request.method} {exchange.request.url}
      </p>
      <HeaderList headers={exchange.request.headers} testId="composer-sent-headers" />
      <BodyView body={sentBody} testId="composer-sent-body" />
      {entry && outbound && (
        <>
          <h3>What left for the destination</h3>
          <p className="path">
            {outbound.method} {outbound.url ?? entry.proxy?.destination_url}
          </p>
          <HeaderList headers={outbound.headers} testId="composer-outbound-headers" />
          <OutboundBody key={entry.id} entryId={entry.id} outbound={outbound} expressions={entry.proxy!.expressions.count} cut={keptPartOnly(entry.request_body)} />
        </>
      )}
    </div>
  );
}

/** The tab on show lives in the pane, so that it stays while each answer brings its own Answer. */
function Answer({ state, result, tab, setTab }: { state: ResponseState; result: ComposerResult; tab: string; setTab: (tab: string) => void }) {
  const exchange = result.kind === 'exchange' ? result.exchange : null;
  const { shown: response, revealed, bar } = useAnswerReveal('response' in state ? state.response : null, exchange?.entry?.id ?? null);
  return (
    <>
      <OutcomeCard state={state} result={result} />
      {tab !== 'sent' && bar}
      {exchange && (
        <Tabs
          label="Response parts"
          selected={tab}
          onSelect={setTab}
          tabs={[
            ...(response
              ? [
                  {
                    id: 'body',
                    label: 'Body',
                    panel: () => (
                      <div className={revealed ? 'revealed' : undefined}>
                        <BodyViewer bytes={bodyBytes(response)} text={bodyText(response)} totalBytes={response.bytes} label="Response body" />
                      </div>
                    ),
                  },
                  {
                    id: 'headers',
                    label: (
                      <>
                        Headers<span className="tab-count">{response.headers.length}</span>
                      </>
                    ),
                    panel: () => <HeaderList headers={response.headers} testId="composer-response-headers" />,
                  },
                ]
              : []),
            { id: 'sent', label: 'Sent', panel: () => <Sent exchange={exchange} sentBody={result.kind === 'exchange' ? result.sentBody : null} /> },
          ]}
        />
      )}
    </>
  );
}

/** A vault with no tokens: one button makes a test card and a request that uses it. */
function FirstRun() {
  const api = useWorkbenchApi();
  const { busy, problem, run } = useEngineCall();
  const listed = useApplicationsStore((state) => state.value !== null);
  return (
    <div className="first-run">
      <p>
        <strong>Your vault has no tokens yet.</strong> Start with a test card: Tokenbench creates a card token and fills in a request that sends it
        through the proxy, so one Send shows what detokenizing does.
      </p>
      <button type="button" className="primary" disabled={busy || !listed} onClick={() => void run(() => startWithTestCard(api))}>
        Start with a test card
      </button>
      <Alert message={problem} />
    </div>
  );
}

export function ResponsePane() {
  const api = useWorkbenchApi();
  const sending = useComposerStore((state) => state.sending);
  const result = useComposerStore((state) => state.result);
  const tokenCount = useEngineStore((state) => state.status?.tokenCount);
  const state = useResponseState();
  const section = useRef<HTMLElement>(null);
  const arrived = useAnswerArrival(section);
  const [tab, setTab] = useState('body');
  return (
    <section className="panel response" aria-labelledby="response-title" aria-busy={sending !== null} ref={section}>
      <h2 id="response-title">Response</h2>
      <p className="visually-hidden" role="status">
        {arrived}
      </p>
      {sending ? (
        <div className="outcome outcome-sending" role="status" aria-label="Outcome">
          <span className="outcome-label">Sending</span>
          <strong className="outcome-title">Waiting for the answer…</strong>
          <button type="button" className="small" onClick={() => cancelComposed(api)}>
            Cancel <kbd>Esc</kbd>
          </button>
        </div>
      ) : state && result ? (
        // Keyed by the request: a reveal shows one answer, never the next.
        <Answer key={result.kind === 'exchange' ? (result.exchange.entry?.id ?? 'no entry') : result.kind} state={state} result={result} tab={tab} setTab={setTab} />
      ) : (
        <p className="muted">Send the request (Ctrl/⌘+Enter) and the answer shows here: who answered, and why.</p>
      )}
      {!sending && !result && tokenCount === 0 && <FirstRun />}
    </section>
  );
}
