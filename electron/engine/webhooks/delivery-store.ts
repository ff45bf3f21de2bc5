/**
 * One row per event and webhook to deliver it to (migration 24). A pending row is what a restart resumes, so a
 * delivery in flight when the engine was killed is sent again (at least once); a finished row, delivered or exhausted,
 * is what the workbench shows of a webhook's recent deliveries, at least the newest `KEPT_FINISHED` per webhook.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import type { EventOutbox, OutboxEvent } from '../events/event-outbox';
import type { Db } from '../storage/database';
import type { WebhookStore } from './webhook-store';

/** The event a delivery carries: an outbox event, or the workbench's `test` event. */
export type DeliveredEvent = Omit<OutboxEvent, 'type'> & { type: OutboxEvent['type'] | 'test' };

export type DeliveryState = 'pending' | 'delivered' | 'exhausted';

/** A delivery as the workbench lists it. `body` is the last attempt's, as sent: events carry no token data. */
export interface DeliveryRecord {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  latency_ms: number | null;
  error: string | null;
  body: string | null;
  created_at: string;
  attempted_at: string | null;
  /** When a pending delivery is tried next (its webhook enabled); null once it is finished. */
  next_attempt_at: string | null;
}

/** A pending delivery whose time has come. */
export interface DueDelivery {
  id: string;
  webhook_id: string;
  event: DeliveredEvent;
  attempts: number;
}

/** What one attempt came to. */
export interface AttemptOutcome {
  status: number | null;
  latencyMs: number;
  error: string | null;
  body: string;
}

/** Finished deliveries kept per webhook for the workbench (pending ones are all kept). */
export const KEPT_FINISHED = 100;
/** A webhook's finished deliveries are pruned back to KEPT_FINISHED once this many more have finished: a prune per delivery would cost each one a scan. */
const PRUNE_EVERY = 50;
/** Events handed over per transaction. */
const HANDOVER_BATCH = 500;

const RECORD_COLUMNS = `id, webhook_id, event_id, event_type, state, attempts, last_status, latency_ms, error, body, created_at, attempted_at,
  CASE WHEN state = 'pending' THEN strftime('%Y-%m-%dT%H:%M:%fZ', next_at / 1000.0, 'unixepoch') END AS next_attempt_at`;

export class DeliveryStore {
  private readonly stmt;
  private readonly handOverBatch: (rows: number) => number;
  private readonly record: (delivery: DueDelivery, outcome: AttemptOutcome, state: DeliveryState, retryAt: number | null, streak: number) => boolean;
  private readonly listeners = new Set<(webhookId: string) => void>();
  /** Deliveries finished per webhook since its last prune. */
  private readonly finishedSincePrune = new Map<string, number>();

  constructor(db: Db, outbox: EventOutbox, webhooks: WebhookStore) {
    this.stmt = {
      insert: db.prepare(`INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, event, state, next_at, created_at)
        VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`),
      // Only enabled webhooks' deliveries fall due: a disabled one's wait until a replace enables it again.
      due: db.prepare(`SELECT d.id, d.webhook_id, d.event, d.attempts FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.state = 'pending' AND w.status = 'enabled' AND d.next_at <= ? ORDER BY d.next_at, d.seq LIMIT ?`),
      upcoming: db.prepare(`SELECT d.id, d.next_at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.state = 'pending' AND w.status = 'enabled' ORDER BY d.next_at, d.seq LIMIT ?`),
      attempted: db.prepare(`UPDATE webhook_deliveries SET state = @state, attempts = attempts + 1, next_at = @next_at, last_status = @status,
        latency_ms = @latency, error = @error, body = @body, attempted_at = @at WHERE id = @id`),
      prune: db.prepare(`DELETE FROM webhook_deliveries WHERE webhook_id = @webhook AND state != 'pending' AND seq NOT IN
        (SELECT seq FROM webhook_deliveries WHERE webhook_id = @webhook AND state != 'pending' ORDER BY seq DESC LIMIT @kept)`),
      lastFinished: db.prepare(`SELECT state FROM webhook_deliveries WHERE webhook_id = ? AND state != 'pending' ORDER BY seq DESC LIMIT ?`),
      recent: db.prepare(`SELECT ${RECORD_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?`),
      get: db.prepare(`SELECT ${RECORD_COLUMNS} FROM webhook_deliveries WHERE id = ?`),
      event: db.prepare('SELECT webhook_id, event FROM webhook_deliveries WHERE id = ?'),
    };
    this.handOverBatch = db.transaction((rows: number) => {
      const events = outbox.pending(rows);
      for (const { seq, event } of events) {
        for (const webhook of webhooks.wanting(event.type)) this.insert(webhook.id, event);
        outbox.handedOver(seq);
      }
      return new Set(events.map((e) => e.seq)).size;
    });
    this.record = db.transaction((delivery: DueDelivery, outcome: AttemptOutcome, state: DeliveryState, retryAt: number | null, streak: number) => {
      const { attempted, prune, lastFinished } = this.stmt;
      attempted.run({ id: delivery.id, state, next_at: retryAt ?? 0, status: outcome.status, latency: Math.round(outcome.latencyMs), error: outcome.error, body: outcome.body, at: nowIso() });
      this.changed(delivery.webhook_id);
      if (state === 'pending') return false;
      const finished = (this.finishedSincePrune.get(delivery.webhook_id) ?? 0) + 1;
      this.finishedSincePrune.set(delivery.webhook_id, finished % PRUNE_EVERY);
      if (finished === PRUNE_EVERY) prune.run({ webhook: delivery.webhook_id, kept: KEPT_FINISHED });
      if (state === 'delivered') return false;
      const last = lastFinished.all(delivery.webhook_id, streak) as { state: DeliveryState }[];
      return last.length === streak && last.every((row) => row.state === 'exhausted');
    });
  }

  /**
   * Turns the outbox's events into deliveries to the webhooks that want them now, each batch in one transaction: all
   * of them, or those of the oldest `rows` outbox rows (a row holds one event, or a batch of reads).
   */
  handOver(rows = Number.POSITIVE_INFINITY): void {
    for (let left = rows; left > 0; left -= HANDOVER_BATCH) {
      if (this.handOverBatch(Math.min(left, HANDOVER_BATCH)) < Math.min(left, HANDOVER_BATCH)) return;
    }
  }

  /** Whether some delivery not in flight is due now. */
  anyDue(busy: ReadonlySet<string>): boolean {
    return this.due(1, busy).length > 0;
  }

  /** A delivery of `event` to one webhook, due at once (the workbench's test event, a redelivery). */
  add(webhookId: string, event: DeliveredEvent): DeliveryRecord {
    return this.get(this.insert(webhookId, event))!;
  }

  /** Up to `limit` deliveries due now, leaving out those `busy` (in flight). */
  due(limit: number, busy: ReadonlySet<string>): DueDelivery[] {
    const rows = this.stmt.due.all(Date.now(), limit + busy.size) as (Omit<DueDelivery, 'event'> & { event: string })[];
    return rows
      .filter((row) => !busy.has(row.id))
      .slice(0, limit)
      .map((row) => ({ ...row, event: JSON.parse(row.event) as DeliveredEvent }));
  }

  /** When the next delivery not in flight falls due (epoch ms), or null when none waits. */
  nextDueAt(busy: ReadonlySet<string>): number | null {
    const rows = this.stmt.upcoming.all(busy.size + 1) as { id: string; next_at: number }[];
    return rows.find((row) => !busy.has(row.id))?.next_at ?? null;
  }

  /**
   * Records an attempt: delivered, tried again at `retryAt`, or exhausted when `retryAt` is null. Answers whether the
   * webhook's last `streak` finished events all exhausted.
   */
  attempted(delivery: DueDelivery, outcome: AttemptOutcome, delivered: boolean, retryAt: number | null, streak: number): boolean {
    return this.record(delivery, outcome, delivered ? 'delivered' : retryAt === null ? 'exhausted' : 'pending', retryAt, streak);
  }

  /** A webhook's deliveries, newest first. */
  recent(webhookId: string, limit: number): DeliveryRecord[] {
    return this.stmt.recent.all(webhookId, limit) as DeliveryRecord[];
  }

  get(id: string): DeliveryRecord | undefined {
    return this.stmt.get.get(id) as DeliveryRecord | undefined;
  }

  /** The event a delivery carries, and the webhook it goes to. */
  eventOf(id: string): { webhook_id: string; event: DeliveredEvent } | undefined {
    const row = this.stmt.event.get(id) as { webhook_id: string; event: string } | undefined;
    return row && { webhook_id: row.webhook_id, event: JSON.parse(row.event) as DeliveredEvent };
  }

  /** Hears the webhook of each delivery queued or attempted (the workbench's live feed). */
  onChange(listener: (webhookId: string) => void): void {
    this.listeners.add(listener);
  }

  private insert(webhookId: string, event: DeliveredEvent): string {
    const id = randomUUID();
    this.stmt.insert.run(id, webhookId, event.id, event.type, JSON.stringify(event), Date.now(), nowIso());
    this.changed(webhookId);
    return id;
  }

  private changed(webhookId: string): void {
    for (const listener of this.listeners) listener(webhookId);
  }
}
