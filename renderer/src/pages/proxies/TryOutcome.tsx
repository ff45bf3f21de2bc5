import { useMemo, useState, type ReactNode } from 'react';
import type { Exchange } from '../../../../shared/workbench/composer-contract';
import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { Alert } from '../../components/Alert';
import { AnswerBanner } from '../../components/AnswerBanner';
import { answerSourceOf } from '../../components/answer-source';
import { BodyViewer } from '../../components/BodyViewer';
import { formatMs } from '../../components/format';
import { HeaderList } from '../../components/HeaderList';
import { useEngineCall } from '../../api/engine-call';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { useHeaderPrefix } from '../../state/engine-store';
import { bodyBytes, bodyText } from '../composer/response-state';

/** What came back of a Try: who answered, the call's trace step by step (`trace`), and the answer as the client got it. */
export function TryOutcome({ exchange, trace }: { exchange: Exchange; trace: (entry: HistoryEntry) => ReactNode }) {
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
      {entry && trace(entry)}
      <section aria-labelledby="proxy-try-answer">
        <h3 id="proxy-try-answer">Answer to the client</h3>
        <HeaderList headers={outcome.headers} testId="proxy-try-headers" />
        <BodyViewer bytes={bodyBytes(outcome)} text={bodyText(outcome)} totalBytes={outcome.bytes} label="Answer body" />
      </section>
    </div>
  );
}

/**
 * A Try's sender and outcome: the private applications it may send as (the first, unless the user chose another), and
 * `send`, which sends as the chosen one (`as` says how, "send as") and keeps what came back.
 */
export function useTryAs(as: string) {
  const applications = useApplicationsStore((state) => state.value);
  const [chosen, choose] = useState<string | null>(null);
  const callers = useMemo(() => (applications ?? []).filter((application) => application.type === 'private'), [applications]);
  const application = applicationToUse(callers, chosen);
  const [exchange, setExchange] = useState<Exchange | null>(null);
  const { busy, problem, run } = useEngineCall();
  const send = (call: (applicationId: string) => Promise<Exchange>) =>
    run(async () => {
      if (!application) throw new Error(`No private application to ${as}: create one in Settings, then try again.`);
      setExchange(null);
      setExchange(await call(application.id));
    });
  return { callers, application, choose, exchange, busy, problem, send };
}

/** A Try's send button (`label`, and `working` while it runs), why the last send failed, and what came back. */
export function TrySend({ tried, label, working, send, trace }: { tried: ReturnType<typeof useTryAs>; label: string; working: string; send: () => void; trace: (entry: HistoryEntry) => ReactNode }) {
  return (
    <>
      <div className="proxy-actions">
        <button type="button" className="primary" disabled={tried.busy} onClick={send} aria-keyshortcuts="Control+Enter Meta+Enter">
          {tried.busy ? working : label}
        </button>
      </div>
      <Alert message={tried.problem} />
      {tried.exchange && <TryOutcome exchange={tried.exchange} trace={trace} />}
    </>
  );
}
