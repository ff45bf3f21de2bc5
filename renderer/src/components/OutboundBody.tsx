import type { ProxyDetails } from '../../../shared/workbench/history-contract';
import { useEngineCall } from '../api/engine-call';
import { useWorkbenchApi } from '../api/workbench-api-context';
import { BodyView } from './BodyView';
import { formatBytes } from './format';
import { Alert } from './Alert';
import { useTimedReveal } from './timed-reveal';
import './components.css';

type Outbound = NonNullable<ProxyDetails['outbound']>;

interface OutboundBodyProps {
  entryId: string;
  outbound: Outbound;
  expressions: number;
  /** History kept only the first part of the body, so this shows only that part. */
  cut: boolean;
}

/**
 * What left for the destination, masked; its plaintext only when the user asks (Reveal), fetched from the engine for
 * this view alone (which records the reveal in history) and dropped as every reveal is (useTimedReveal), or when
 * another request is selected (the parent keys this by entry).
 */
export function OutboundBody({ entryId, outbound, expressions, cut }: OutboundBodyProps) {
  const api = useWorkbenchApi();
  const { revealed, secondsLeft, show, hide } = useTimedReveal<string>();
  const { busy, problem, run } = useEngineCall();
  const reveal = () => run(async () => show((await api.revealOutbound({ id: entryId })).detokenized_body));

  if (typeof outbound.detokenized_body !== 'string') {
    return (
      <p className="muted" data-testid="entry-outbound-body">
        {outbound.bytes === 0
          ? 'No body.'
          : expressions === 0
            ? `The body as sent, unchanged: it holds no expressions (${formatBytes(outbound.bytes)}).`
            : `${formatBytes(outbound.bytes)}; history kept no masked copy of this body.`}
      </p>
    );
  }
  // Only a body history masks on reading (UTF-8 text) can be rendered again with its plaintext.
  const revealable = outbound.body_kind !== undefined;
  return (
    <>
      <div className="reveal-bar">
        {revealed === null ? (
          <>
            <span className="muted">Detokenized values are masked.</span>
            {revealable && (
              <button type="button" onClick={reveal} disabled={busy} data-testid="entry-reveal">
                Reveal values
              </button>
            )}
          </>
        ) : (
          <>
            <span className="revealed-note" data-testid="entry-revealed-note">
              Plaintext, as the destination received it · hides in {secondsLeft} s
            </span>
            <button type="button" onClick={hide} data-testid="entry-hide">
              Hide
            </button>
          </>
        )}
      </div>
      <Alert message={problem} testId="entry-reveal-problem" />
      <div className={revealed === null ? undefined : 'revealed'}>
        {/* A mask is rarely as long as the value it stands for: only a cut body is said to be cut. */}
        <BodyView body={revealed ?? outbound.detokenized_body} bytes={cut ? outbound.bytes : undefined} testId="entry-outbound-body" />
      </div>
    </>
  );
}
