import { useEffect, useMemo, useRef, useState } from 'react';
import type { Exchange } from '../../../../shared/workbench/composer-contract';
import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { ARGS_OFFSET, reactRequest, type ReactorView } from '../../../../shared/workbench/reactor-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { CodeEditor } from '../../components/CodeEditor';
import { ReactorTrace } from '../../components/ReactorTrace';
import { useHeaderPrefix } from '../../state/engine-store';
import { useEngineFlags } from '../composer/engine-flags';
import { expressionAssist } from '../composer/expression-assist';
import { TrySend, useTryAs } from '../proxies/TryOutcome';
import { randomId } from '../../api/random-id';

export const FIRST_ARGS = '{\n  "amount": 100\n}';

/** The first wait before a react-async's result is asked for, doubled after each pending answer up to the last. */
const FIRST_POLL_MS = 250;
const LONGEST_POLL_MS = 2000;

/** The request id and trace id of a react-async the route accepted (202); null for any other answer. */
function acceptedRun(exchange: Exchange, traceHeader: string): { resultId: string; traceId: string } | null {
  if (exchange.outcome.kind !== 'response' || exchange.outcome.status !== 202) return null;
  const traceId = exchange.outcome.headers.find(([name]) => name.toLowerCase() === traceHeader.toLowerCase())?.[1];
  try {
    const { asyncReactorRequestId } = JSON.parse(atob(exchange.outcome.body_base64)) as { asyncReactorRequestId?: unknown };
    return typeof asyncReactorRequestId === 'string' && traceId ? { resultId: asyncReactorRequestId, traceId } : null;
  } catch {
    return null;
  }
}

/**
 * Try: the args sent to the saved reactor through POST /reactors/{id}/react (or react-async) as one of the private
 * applications, with the Composer's JSON editor (token completion, the engine's flags), then the trace of that very
 * call. An asynchronous Try asks for the result as a client would, pending until the run ends.
 */
export function TryReactor({ reactor, args, onArgs }: { reactor: ReactorView; args: string; onArgs: (args: string) => void }) {
  const api = useWorkbenchApi();
  const prefix = useHeaderPrefix();
  const tried = useTryAs('react as');
  const { callers, application, choose } = tried;
  const [async, setAsync] = useState(false);
  /** The react-async whose result is awaited, and how many times it was asked for. */
  const [pending, setPending] = useState<{ resultId: string; asked: number } | null>(null);
  /** The react-async's own History entry, once its result is there: its trace stands beside the result's answer. */
  const [reacted, setReacted] = useState<HistoryEntry | null>(null);
  // Counts the reactors left (and the page): a result asked for before is asked for no more.
  const left = useRef(0);
  useEffect(
    () => () => {
      left.current++;
    },
    [reactor.id],
  );
  // The react Try sends, checked by the engine as the Composer's requests are: the flags point into the args.
  const diagnostics = useEngineFlags({ application_id: application?.id ?? null, target_id: null, ...reactRequest(reactor.id, args, async) }, args, ARGS_OFFSET);
  const assist = useMemo(() => expressionAssist(api, () => ({ applicationId: application?.id ?? null, contentType: 'application/json', remote: null })), [api, application]);

  /** The result of an accepted react-async, asked for until it is there; its trace is that of the react's own entry. */
  async function resultOf(id: string, application_id: string, run: { resultId: string; traceId: string }): Promise<Exchange> {
    const shownWhenSent = left.current;
    try {
      for (let wait = FIRST_POLL_MS, asked = 1; ; wait = Math.min(wait * 2, LONGEST_POLL_MS), asked++) {
        setPending({ resultId: run.resultId, asked });
        const { pending: still, exchange, reacted } = await api.tryReactorResult({ request_id: randomId(), id, application_id, result_id: run.resultId, trace_id: run.traceId });
        if (!still) {
          setReacted(reacted);
          return exchange;
        }
        if (left.current !== shownWhenSent) throw new Error('Stopped asking for the result: ask again from History, or react again.');
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      setPending(null);
    }
  }

  // A react-async's result is a GET of its own: the trace is the react's.
  const traceOf = (entry: HistoryEntry) => {
    const details = entry.reactor ?? reacted?.reactor;
    return details && <ReactorTrace details={details} />;
  };
  const send = () =>
    tried.send(async (application_id) => {
      setReacted(null);
      const sent = await api.tryReactor({ request_id: randomId(), id: reactor.id, application_id, args, async });
      const run = async ? acceptedRun(sent, `${prefix}-TRACE-ID`) : null;
      return run ? resultOf(reactor.id, application_id, run) : sent;
    });
  return (
    <section className="panel proxy-try" aria-labelledby="reactor-try-title">
      <h2 id="reactor-try-title">Try</h2>
      <p className="muted proxy-hint">
        Sends {'{"args": …}'} to /reactors/…/{async ? 'react-async' : 'react'} as the application you choose, as any client would; History records it too.
      </p>
      <div className="proxy-inline">
        {application && <ApplicationSelect label="React as" applications={callers} value={application.id} onChange={choose} />}
        <label className="proxy-check">
          <input type="checkbox" checked={async} onChange={(event) => setAsync(event.target.checked)} />
          <span>Asynchronously (react-async: 202, then the result)</span>
        </label>
      </div>
      <CodeEditor label="Args" value={args} language="json" onChange={onArgs} onSubmit={() => void send()} extensions={assist} diagnostics={diagnostics} />
      <p className="muted proxy-hint">Ctrl+Space completes a token id by its mask; flags on the args are the engine's, as in the Composer. Ctrl+Enter reacts.</p>
      {pending && (
        <p className="proxy-try-status" role="status">
          <strong>Pending</strong>: react-async accepted as request {pending.resultId}; asked for its result {pending.asked} {pending.asked === 1 ? 'time' : 'times'} so far.
        </p>
      )}
      <TrySend tried={tried} label="React" working={pending ? 'Waiting for the result…' : 'Reacting…'} send={() => void send()} trace={traceOf} />
    </section>
  );
}
