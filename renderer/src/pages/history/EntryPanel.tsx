import { Fragment, useRef } from 'react';
import type { HistoryEntry } from '../../../../shared/workbench/history-contract';
import { IS_MAC, shortcutLabel } from '../../components/keys';
import { useEngineStore, useHeaderPrefix } from '../../state/engine-store';
import { useHistoryStore } from '../../state/history-store';
import { AnswerBanner } from '../../components/AnswerBanner';
import { answerSourceOf } from '../../components/answer-source';
import { BodyView, keptPartOnly } from '../../components/BodyView';
import { formatBytes, formatMs } from '../../components/format';
import { HeaderList } from '../../components/HeaderList';
import { OutboundBody } from '../../components/OutboundBody';
import { PipelineTrace } from '../../components/PipelineTrace';
import { ReactorTrace } from '../../components/ReactorTrace';
import { CopyButton } from '../../components/CopyButton';
import { curlOf } from './copy-as-curl';
import { ExportHar } from './ExportHar';
import { replayable, replayInComposer } from './replay';
import { senderOf } from './sender';
import { useKeptScroll } from './kept-scroll';
import { AnswerBody } from './AnswerBody';
import { useApplicationName } from '../../state/applications-store';

/** The panel's element id, for the list to bring it into view. */
export const ENTRY_PANEL = 'history-entry';

/** Why the proxy could not reach a destination, as its history entry records it (network-failures.ts's reasons). */
const NOT_REACHED: Record<string, string> = {
  refused: 'connection refused: nothing listened there',
  dns: 'the host name was not found',
  reset: 'the destination closed the connection before answering',
  tls: 'the TLS handshake failed',
  connect_timeout: 'the connection was not taken in time',
  network: 'the network could not reach it',
};

/** The request as a cURL command, with what History could not keep of it said beside the button. */
function CopyAsCurl({ entry }: { entry: HistoryEntry }) {
  const status = useEngineStore((state) => state.status);
  if (!status) return null;
  const { command, notes } = curlOf(entry, status.url, status.headerPrefix);
  return (
    <>
      <CopyButton text={command} label="Copy as cURL" caption="Copy as cURL" />
      {notes.length > 0 && <span className="muted entry-copy-notes">{notes.join(' ')}</span>}
    </>
  );
}

/** Sends the request again from the Composer; a body History cut asks first, since only its first part is kept. */
function Replay({ entry }: { entry: HistoryEntry }) {
  const confirming = useHistoryStore((state) => state.confirmingReplay === entry.id);
  const confirmReplay = useHistoryStore((state) => state.confirmReplay);
  if (!confirming) {
    return (
      <p className="entry-actions">
        {replayable(entry) && (
          <button type="button" className="small" onClick={() => replayInComposer(entry)} aria-keyshortcuts={IS_MAC ? 'Meta+R' : 'Control+R'}>
            Replay in Composer <kbd>{shortcutLabel('R')}</kbd>
          </button>
        )}
        <ExportHar request={{ ids: [entry.id] }} label="Export this entry as HAR" />
        {replayable(entry) && <CopyAsCurl entry={entry} />}
      </p>
    );
  }
  return (
    <div className="confirm" role="alertdialog" aria-labelledby="replay-cut-title">
      <p id="replay-cut-title">
        <strong>History kept only the first 16 KiB of this body.</strong> Replaying sends that part, not the whole body that was sent.
      </p>
      <button type="button" className="small" autoFocus onClick={() => replayInComposer(entry, true)}>
        Replay the kept part
      </button>{' '}
      <button type="button" className="small" onClick={() => confirmReplay(null)}>
        Cancel
      </button>
    </div>
  );
}

/** One request from the history: who answered it, what was sent, what left for the destination, and what came back. */
export function EntryPanel() {
  const entry = useHistoryStore((state) => state.selected);
  const prefix = useHeaderPrefix();
  const applicationName = useApplicationName();
  const place = useRef<HTMLElement>(null);
  useKeptScroll(place, 'entry');
  if (!entry) {
    return (
      <section className="panel" aria-labelledby="entry-title" id={ENTRY_PANEL} data-testid="entry-panel" ref={place}>
        <h2 id="entry-title">Request</h2>
        <p className="muted" data-testid="entry-empty">
          Select a request in the history to see it here.
        </p>
      </section>
    );
  }
  const details = entry.proxy;
  return (
    <section className="panel entry" aria-labelledby="entry-title" id={ENTRY_PANEL} data-testid="entry-panel" ref={place}>
      <h2 id="entry-title" tabIndex={-1}>
        <span className="method">{entry.method}</span> <span className="path">{entry.path}</span>
      </h2>
      <p className="muted">
        <span data-testid="entry-sender">Sent by {senderOf(entry, applicationName)}</span> · {new Date(entry.at).toLocaleString()} · {entry.duration_ms.toFixed(1)} ms
        {entry.trace_id && <> · trace {entry.trace_id}</>}
        {entry.transaction_id && <> · transaction {entry.transaction_id}</>}
      </p>
      <Replay entry={entry} />

      <AnswerBanner answer={answerSourceOf(entry, prefix)} />

      {details && details.warnings.length > 0 && (
        <div className="warnings" data-testid="entry-warnings">
          <h3>Where the hosted service would behave differently</h3>
          <ul>
            {details.warnings.map((warning, i) => (
              <li key={i} data-testid="entry-warning">
                {warning}
              </li>
            ))}
          </ul>
        </div>
      )}

      {details && (
        <dl className="facts" data-testid="entry-proxy-facts">
          {details.proxy && (
            <>
              <dt>Pre-configured proxy</dt>
              <dd data-testid="entry-preconfigured">{details.proxy.name}</dd>
            </>
          )}
          <dt>Destination</dt>
          <dd data-testid="entry-destination">{details.destination_url ?? '–'}</dd>
          <dt>Expressions</dt>
          <dd data-testid="entry-expressions">
            {details.expressions.count}
            {details.expressions.token_ids.length > 0 && <> · tokens {details.expressions.token_ids.join(', ')}</>}
          </dd>
          {details.expressions.empty && details.expressions.empty.length > 0 && (
            <>
              <dt>Sent empty</dt>
              <dd data-testid="entry-sent-empty">
                {details.expressions.empty.map(({ expression, from }, i) => (
                  <Fragment key={from}>
                    {i > 0 && ', '}
                    <code>{expression}</code>
                  </Fragment>
                ))}{' '}
                wrote nothing, so the destination got no value there.
              </dd>
            </>
          )}
          {details.client_encryption_keys && (
            <>
              <dt>Decrypted with</dt>
              <dd data-testid="entry-encryption-keys">client encryption key {details.client_encryption_keys.join(', ')}</dd>
            </>
          )}
          {details.failure?.reason && (
            <>
              <dt>Not reached</dt>
              <dd data-testid="entry-not-reached">{NOT_REACHED[details.failure.reason] ?? details.failure.reason}</dd>
            </>
          )}
          <dt>Timings</dt>
          <dd data-testid="entry-timings">
            detokenize {formatMs(details.timings.detokenize_ms)} · destination headers {formatMs(details.timings.destination_headers_ms)} ·
            total {formatMs(details.timings.total_ms)}
          </dd>
        </dl>
      )}

      {details && <PipelineTrace entry={entry} details={details} />}
      {entry.reactor && <ReactorTrace details={entry.reactor} />}

      {/* A workbench reveal or change was no request: the banner says all there is. */}
      {replayable(entry) && (
        <div className="exchange">
          <section aria-labelledby="entry-request-title">
            <h3 id="entry-request-title">Request as sent to Tokenbench</h3>
            <HeaderList headers={entry.request_headers} testId="entry-request-headers" />
            <BodyView body={entry.request_body} testId="entry-request-body" />
          </section>

          {details?.outbound && (
            <section aria-labelledby="entry-outbound-title">
              <h3 id="entry-outbound-title">
                {details.response ? 'Sent to the destination' : 'Forwarded toward the destination, which did not answer'}
              </h3>
              <p className="path" data-testid="entry-outbound-line">
                {details.outbound.method} {details.outbound.url ?? details.destination_url}
              </p>
              <HeaderList headers={details.outbound.headers} testId="entry-outbound-headers" />
              <OutboundBody
                key={entry.id}
                entryId={entry.id}
                outbound={details.outbound}
                expressions={details.expressions.count}
                cut={keptPartOnly(entry.request_body)}
              />
            </section>
          )}

          {details?.response && (
            <section aria-labelledby="entry-response-title">
              <h3 id="entry-response-title">
                Destination's response: {details.response.status}, {formatBytes(details.response.bytes)}
              </h3>
              <HeaderList headers={details.response.headers} testId="entry-response-headers" />
              <AnswerBody entryId={entry.id} body={details.response.body} />
            </section>
          )}
        </div>
      )}
    </section>
  );
}
