import type { ReactNode } from 'react';
import type { Exchange } from '../../../../shared/workbench/composer-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { useTimedReveal } from '../../components/timed-reveal';

type Received = Extract<Exchange['outcome'], { kind: 'response' }>;

export interface AnswerReveal {
  /** The answer to show: as the engine masked it, or, while revealed, as the destination sent it. */
  shown: Received | null;
  revealed: boolean;
  /** What to say above the answer's parts, and the button that reveals or hides them; null when nothing is masked. */
  bar: ReactNode;
}

/**
 * One answer's masked values, revealed only when the user asks: fetched from the engine for this view alone (which
 * records the reveal in History by the request's id) and dropped as every reveal is (useTimedReveal), or with the
 * view when another answer comes (the parent keys it by the request).
 */
export function useAnswerReveal(response: Received | null, entryId: string | null): AnswerReveal {
  const api = useWorkbenchApi();
  const { revealed, secondsLeft, show, hide } = useTimedReveal<Pick<Received, 'headers' | 'body_base64'>>();
  const { busy, problem, run } = useEngineCall();
  if (!response || response.masked === 0 || entryId === null) return { shown: response, revealed: false, bar: null };
  const reveal = () => run(async () => show(await api.revealAnswer({ id: entryId })));
  const values = response.masked === 1 ? '1 value the proxy detokenized is' : `${response.masked} values the proxy detokenized are`;
  const bar = (
    <>
      <div className="reveal-bar">
        {revealed === null ? (
          <>
            <span className="muted">{values} masked in this answer.</span>
            <button type="button" className="small" onClick={reveal} disabled={busy}>
              Reveal values
            </button>
          </>
        ) : (
          <>
            <span className="revealed-note">Plaintext, as the destination sent it · hides in {secondsLeft} s</span>
            {/* The Reveal button it replaces had the focus: the keyboard goes on from here (a button of its own, by its key). */}
            <button key="hide" type="button" className="small" onClick={hide} autoFocus>
              Hide
            </button>
          </>
        )}
      </div>
      <Alert message={problem} />
    </>
  );
  return { shown: revealed === null ? response : { ...response, ...revealed }, revealed: revealed !== null, bar };
}
