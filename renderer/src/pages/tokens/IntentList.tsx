import { Alert } from '../../components/Alert';
import { formatCount, plural } from '../../components/format';
import { useNow } from '../../components/now';
import { useApplicationName } from '../../state/applications-store';
import { useTokenIntentsStore } from '../../state/token-intents-store';
import { useTokensStore } from '../../state/tokens-store';
import { IntentTimeLeft, intentSummary, liveIntents } from './intent-parts';
import { SHORT_ID } from './TokenContext';

/**
 * The live token intents, newest first, each with its card or bank summary (never its data), who created it and its
 * countdown; one leaves when it runs out, and when the live road says it was converted or deleted. Tab moves between
 * them, Enter opens one beside the list.
 */
export function IntentList() {
  const list = useTokenIntentsStore((state) => state.value);
  const problem = useTokenIntentsStore((state) => state.problem);
  const panel = useTokensStore((state) => state.panel);
  const show = useTokensStore((state) => state.show);
  const name = useApplicationName(SHORT_ID);
  const now = useNow();
  if (problem) return <Alert message={`Could not list the token intents: ${problem}`} />;
  if (!list) return <p className="muted">Reading the token intents…</p>;
  const intents = liveIntents(list, now);
  return (
    <>
      <p className="token-summary" role="status" aria-label="Token intents found">
        {plural(intents.length, 'live intent', 'live intents')}
        {list.more && ` · the newest ${formatCount(list.intents.length)} listed, older ones not`} · their data stays in the engine
      </p>
      {intents.length === 0 ? (
        <p className="muted token-empty">
          No live token intent. A browser makes one with a public key (<code>POST /token-intents</code>); make one here with New intent.
        </p>
      ) : (
        <div className="intent-table">
          <div className="intent-row token-header" aria-hidden="true">
            <span>Intent</span>
            <span>Type</span>
            <span>Card or bank</span>
            <span className="medium-only">Created by</span>
            <span>Expires in</span>
          </div>
          <ul className="intent-list" aria-label="Token intents">
            {intents.map((intent) => (
              <li
                key={intent.id}
                className={panel.kind === 'intent' && panel.id === intent.id ? 'intent-row opened' : 'intent-row'}
                onClick={() => show({ kind: 'intent', id: intent.id })}
              >
                <button type="button" className="link mono" title={intent.id} aria-label={`Open token intent ${intent.id}`}>
                  {intent.id.slice(0, SHORT_ID)}
                </button>
                <span>{intent.type}</span>
                <span className="mono">{intentSummary(intent)}</span>
                <span className="medium-only">{name(intent.created_by)}</span>
                <IntentTimeLeft intent={intent} />
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
