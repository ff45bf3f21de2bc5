/**
 * Delivers webhooks (vendor-surfaces.md §5.4): woken when events are raised (and at start, and every few seconds in
 * case a wake was missed), it hands the outbox's events over as deliveries, then POSTs each due delivery, signed,
 * through its own forwarder (the proxy's, under the destination policy) with a 10 s deadline. A 2xx is success;
 * anything else is tried again after each wait of the schedule, then the event is exhausted; a webhook whose last
 * events all exhausted is disabled.
 */
import { nowIso } from '../clock';
import type { EventOutbox } from '../events/event-outbox';
import type { Forwarder } from '../proxy/forwarder';
import type { DeliveryPacer } from './delivery-pacer';
import type { DeliveryStore, DueDelivery, AttemptOutcome } from './delivery-store';
import { canonicalJson, type WebhookSigner } from './webhook-signer';
import type { WebhookStore } from './webhook-store';

/** A receiver must answer within this long. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** A webhook whose last this many finished events all exhausted their attempts is disabled. */
export const DISABLE_AFTER_EXHAUSTED = 10;
/** Deliveries in flight at once, over all webhooks. */
const CONCURRENCY = 16;
/** How often the outbox and the due deliveries are looked at without a wake. */
const SWEEP_MS = 5_000;
/** How long a claimed delivery is kept from other runners: past any attempt's deadline, so it is never sent twice at once. */
const CLAIM_MS = 2 * WEBHOOK_TIMEOUT_MS;

export interface WebhookDispatcherDeps {
  outbox: EventOutbox;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  signer: WebhookSigner;
  forwarder: Forwarder;
  /** Holds deliveries back to their share of the engine while clients are being served. */
  pacer: DeliveryPacer;
  /** The waits before the 2nd, 3rd, … attempt (the engine's `webhookRetryDelaysMs`). */
  retryDelaysMs: readonly number[];
  headerPrefix: string;
  log(line: string): void;
}

export interface WebhookDispatcher {
  /** Starts listening to the outbox and sends what a previous run left pending; nothing is sent before. */
  start(): void;
  /** Hands over what the outbox holds and sends what is due (also what the workbench just queued). */
  wake(): void;
  stop(): Promise<void>;
}

export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { outbox, webhooks, deliveries, signer, forwarder, pacer, retryDelaysMs } = deps;
  const inFlight = new Map<string, Promise<void>>();
  /** Stops the POSTs under way; a stop calls them, leaving those deliveries pending for the next start. */
  const cancels = new Set<() => void>();
  let timer: NodeJS.Timeout | null = null;
  /** The wake after a wait the pacer asked for. */
  let paced: NodeJS.Timeout | null = null;
  let sweep: NodeJS.Timeout | null = null;
  /** The turn under way (handing over, claiming, scheduling): one at a time, and a wake meanwhile runs another after it. */
  let turning: Promise<void> | null = null;
  let again = false;
  let started = false;
  let stopped = false;

  /** How many deliveries may be in flight now. */
  const limit = () => Math.min(CONCURRENCY, pacer.atOnce());
  /** Whether as many deliveries are in flight as may be now: the next wake is the one a finishing delivery makes. */
  const full = () => inFlight.size >= limit();

  function wake(): void {
    if (!started || stopped) return;
    // Under load every stored batch of reads wakes the dispatcher; while it is full, looking at the outbox is waste.
    if (full()) return;
    if (turning) {
      again = true;
      return;
    }
    // Held back: the events stay in the outbox, and even handing them over waits.
    const wait = pacer.waitMs();
    if (wait > 0) {
      paced ??= setTimeout(() => {
        paced = null;
        wake();
      }, wait).unref();
      return;
    }
    turning = turn().finally(() => {
      turning = null;
      if (!again) return;
      again = false;
      wake();
    });
  }

  async function turn(): Promise<void> {
    const working = performance.now();
    try {
      // While clients are served, only as many events become deliveries as are about to be sent: handing over costs
      // about as much per event as a delivery's own bookkeeping.
      if (pacer.atOnce() === Number.POSITIVE_INFINITY) await deliveries.handOver();
      else if (!(await deliveries.anyDue())) await deliveries.handOver(1);
      await pump();
    } catch (error) {
      // The database failed (a full disk): what is pending stays, and the next wake or sweep tries again.
      deps.log(`Webhooks: could not hand events over or send them: ${(error as Error).message}`);
    } finally {
      // The engine's own work for deliveries (handing over, claiming what is due, starting the POST) is their cost
      // too, beside the time they are in flight.
      pacer.spent(performance.now() - working);
    }
  }

  async function pump(): Promise<void> {
    if (stopped || full()) return;
    const claimed = await deliveries.claim(limit() - inFlight.size, CLAIM_MS);
    if (stopped) {
      await Promise.all(claimed.map((delivery) => deliveries.release(delivery)));
      return;
    }
    for (const delivery of claimed) {
      pacer.started();
      const attempt = send(delivery)
        .catch((error: unknown) => deps.log(`Webhooks: delivery ${delivery.id} could not be recorded, and stays pending: ${(error as Error).message}`))
        .finally(() => {
          inFlight.delete(delivery.id);
          pacer.finished();
          wake();
        });
      inFlight.set(delivery.id, attempt);
    }
    await schedule();
  }

  /** One timer, for the next delivery due (one in flight is not: its claim put it off). */
  async function schedule(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (full()) return;
    const next = await deliveries.nextDueAt();
    if (next === null || stopped) return;
    timer = setTimeout(wake, Math.max(0, next - Date.now())).unref();
  }

  async function send(delivery: DueDelivery): Promise<void> {
    const webhook = webhooks.get(delivery.webhook_id);
    if (!webhook) return;
    const body = canonicalJson({ delivered_at: nowIso(), event: delivery.event });
    const started = performance.now();
    let outcome: AttemptOutcome;
    try {
      outcome = await post(new URL(webhook.url), body, await signer.sign(body));
    } catch (error) {
      outcome = { status: null, latencyMs: performance.now() - started, error: (error as Error).message, body };
    }
    // Cancelled by a stop: given back, so the next start sends it at once.
    if (stopped) return deliveries.release(delivery);
    const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    const wait = retryDelaysMs[delivery.attempts];
    const retryAt = delivered || wait === undefined ? null : Date.now() + wait;
    if (await deliveries.attempted(delivery, outcome, delivered, retryAt, DISABLE_AFTER_EXHAUSTED)) {
      deps.log(`Webhook ${webhook.id} disabled: its last ${DISABLE_AFTER_EXHAUSTED} events failed every attempt`);
    }
  }

  function post(url: URL, body: string, signature: string): Promise<AttemptOutcome> {
    const started = performance.now();
    let status = 0;
    const request = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: ['content-type', 'application/json', `${deps.headerPrefix}-SIGNATURE`, signature, `${deps.headerPrefix}-SIGNATURE-VERSION`, '1'],
      body: Buffer.from(body),
    };
    const sink = { start: (answered: number) => void (status = answered), write: () => true, end: () => undefined };
    pacer.posting();
    const forwarding = forwarder.forward(request, sink);
    cancels.add(forwarding.cancel);
    return forwarding.done
      .then(
        () => ({ status, latencyMs: performance.now() - started, error: status >= 200 && status < 300 ? null : `the receiver answered ${status}`, body }),
        (error: unknown) => ({ status: null, latencyMs: performance.now() - started, error: (error as Error).message, body }),
      )
      .finally(() => cancels.delete(forwarding.cancel));
  }

  return {
    start() {
      started = true;
      outbox.onRaised(wake);
      sweep = setInterval(wake, SWEEP_MS).unref();
      wake();
    },
    wake,
    async stop() {
      stopped = true;
      if (sweep) clearInterval(sweep);
      // A receiver that holds a delivery must not hold the engine's stop for the 10 s deadline.
      for (const cancel of cancels) cancel();
      if (timer) clearTimeout(timer);
      if (paced) clearTimeout(paced);
      // The turn under way gives back what it claimed once it sees the stop.
      await turning;
      await Promise.allSettled(inFlight.values());
    },
  };
}
