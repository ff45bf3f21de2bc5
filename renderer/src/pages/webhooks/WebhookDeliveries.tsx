import { useCallback, useEffect, useRef, useState } from 'react';
import type { DeliveryView, WebhookView } from '../../../../shared/workbench/webhook-contract';
import { messageOf, useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { BodyViewer } from '../../components/BodyViewer';
import { ColumnHeads } from '../../components/ColumnHeads';
import { formatCountdown, formatMs, plural } from '../../components/format';
import { useNow } from '../../components/now';
import { useWebhookDeliveriesHeard } from '../../state/webhooks-store';

/** The deliveries listed: the newest, as many as a developer reads while working. */
const LISTED = 50;

const shortId = (id: string) => id.slice(0, 8);
const timeOf = (iso: string) => new Date(iso).toLocaleTimeString();

/** Where a delivery is: sent, given up, or its next attempt (counted down). */
function StateCell({ delivery, now }: { delivery: DeliveryView; now: number }) {
  if (delivery.state === 'delivered') return <span className="status-ok">delivered</span>;
  if (delivery.state === 'exhausted') return <span className="problem">failed every attempt</span>;
  // Not tried yet: sent now, or waiting while the engine serves requests (deliveries give way to them).
  if (delivery.next_attempt_at === null || delivery.attempts === 0) return <span>queued</span>;
  const left = Date.parse(delivery.next_attempt_at) - now;
  return <span className="status-warn">{left > 0 ? `retry in ${formatCountdown(left)}` : 'retrying…'}</span>;
}

/** One delivery in full: what its last attempt came to, and the body as sent. */
function DeliveryDetail({ delivery, disabled }: { delivery: DeliveryView; disabled: boolean }) {
  const text = delivery.body;
  const bytes = new TextEncoder().encode(text ?? '');
  return (
    <section className="webhook-delivery" aria-label={`Delivery of ${delivery.event_type} ${shortId(delivery.event_id)}`}>
      <h3>
        <span className="mono">{delivery.event_type}</span> <span className="muted mono">event {delivery.event_id}</span>
      </h3>
      <p className="muted proxy-hint">
        {plural(delivery.attempts, 'attempt', 'attempts')}
        {delivery.attempted_at && <>, the last at {new Date(delivery.attempted_at).toLocaleString()}</>}
        {delivery.last_status !== null && <>, answered {delivery.last_status}</>}
        {delivery.latency_ms !== null && <> in {formatMs(delivery.latency_ms)}</>}.
      </p>
      {delivery.error && (
        <p className="problem">
          {delivery.error}.{' '}
          {delivery.state === 'exhausted'
            ? 'Every attempt failed: fix the receiver, then redeliver it.'
            : delivery.next_attempt_at && (disabled ? 'The webhook is disabled: the retry waits until it is enabled.' : `Tried again at ${timeOf(delivery.next_attempt_at)}; redeliver to try now.`)}
        </p>
      )}
      {text === null ? (
        <p className="muted">Not sent yet: the body is shown once the first attempt is made.</p>
      ) : (
        <BodyViewer bytes={bytes} text={text} totalBytes={bytes.length} label="Body as sent" />
      )}
    </section>
  );
}

/**
 * A webhook's recent deliveries, newest first, read again whenever the live feed says they changed: each event's
 * attempts, last status, latency and next retry; one chosen shows its body as sent (events carry no token data).
 * A test event and a redelivery are real, signed deliveries.
 */
export function WebhookDeliveries({ webhook }: { webhook: WebhookView }) {
  const api = useWorkbenchApi();
  const now = useNow();
  const heard = useWebhookDeliveriesHeard((state) => state.changes[webhook.id] ?? 0);
  const [deliveries, setDeliveries] = useState<DeliveryView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [chosen, choose] = useState<string | null>(null);
  const [said, say] = useState<string | null>(null);
  const sending = useEngineCall();
  // Only the newest read lands: an answer overtaken by a later read is dropped.
  const reads = useRef(0);
  const read = useCallback(() => {
    const turn = ++reads.current;
    return api.listWebhookDeliveries({ id: webhook.id, limit: LISTED }).then(
      (listed) => {
        if (turn !== reads.current) return;
        setDeliveries(listed);
        setProblem(null);
      },
      (error: unknown) => turn === reads.current && setProblem(messageOf(error)),
    );
  }, [api, webhook.id]);
  useEffect(() => void read(), [read, heard]);
  const queue = (call: () => Promise<DeliveryView>, sentence: (queued: DeliveryView) => string) =>
    sending.run(async () => {
      const queued = await call();
      choose(queued.id);
      say(sentence(queued));
      await read();
    });
  const shown = deliveries?.find((delivery) => delivery.id === chosen) ?? deliveries?.[0] ?? null;
  return (
    <section className="panel webhook-deliveries" aria-labelledby="webhook-deliveries-title">
      <div className="panel-head">
        <h2 id="webhook-deliveries-title">Deliveries</h2>
        <button type="button" className="small" disabled={sending.busy} onClick={() => void queue(() => api.sendWebhookTest({ id: webhook.id }), (queued) => `Sent a test event ${shortId(queued.event_id)}.`)}>
          Send test event
        </button>
      </div>
      <p className="muted proxy-hint">Live: each event sent to {webhook.url}, newest first. A failed attempt is tried again on the engine’s schedule, then given up.</p>
      <p className="proxy-said" role="status">
        {said}
      </p>
      <Alert message={sending.problem} />
      <Alert message={problem && `Could not list the deliveries: ${problem}. Is the engine running?`} />
      {deliveries?.length === 0 && <p className="muted">No deliveries yet: send a test event, or do something the webhook subscribes to.</p>}
      {deliveries && deliveries.length > 0 && (
        <table className="data-table webhook-delivery-table" aria-label={`Deliveries to ${webhook.name}`}>
          <ColumnHeads columns={['Event', 'State', 'Attempts', 'Status', 'Latency', 'Last attempt']} buttons="Redeliver" />
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.id} className={delivery === shown ? 'selected' : undefined} aria-selected={delivery === shown}>
                <td>
                  <button type="button" className="link proxy-row" aria-pressed={delivery === shown} aria-label={`Show ${delivery.event_type} event ${shortId(delivery.event_id)}`} onClick={() => choose(delivery.id)}>
                    <span className="mono">{delivery.event_type}</span> <span className="muted mono">{shortId(delivery.event_id)}</span>
                  </button>
                </td>
                <td>
                  <StateCell delivery={delivery} now={now} />
                </td>
                <td>{delivery.attempts}</td>
                <td className="mono">{delivery.last_status ?? (delivery.error ? 'no answer' : '–')}</td>
                <td className="mono">{formatMs(delivery.latency_ms)}</td>
                <td>{delivery.attempted_at ? timeOf(delivery.attempted_at) : '–'}</td>
                <td>
                  <button
                    type="button"
                    className="small"
                    disabled={sending.busy}
                    aria-label={`Redeliver ${delivery.event_type} event ${shortId(delivery.event_id)}`}
                    onClick={() => void queue(() => api.redeliverWebhook({ delivery_id: delivery.id }), (queued) => `Queued ${queued.event_type} event ${shortId(queued.event_id)} again.`)}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {shown && <DeliveryDetail delivery={shown} disabled={webhook.status === 'disabled'} />}
    </section>
  );
}
