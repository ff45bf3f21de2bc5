/**
 * One row per event and webhook to deliver it to (migration 24). A pending row is what a restart resumes, so a
 * delivery in flight when the engine was killed is sent again (at least once); a finished row, delivered or exhausted,
 * is what the workbench shows of a webhook's recent deliveries, at least the newest `KEPT_FINISHED` per webhook.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import type { EventOutbox, OutboxEvent } from '../events/event-outbox';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';
import { disablingWebhook, type WebhookStore } from './webhook-store';

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

const recordColumns = (nextAttemptAt: string) => `id, webhook_id, event_id, event_type, state, attempts, last_status, latency_ms, error, body, created_at, attempted_at,
  CASE WHEN state = 'pending' THEN ${nextAttemptAt} END AS next_attempt_at`;
const SQLITE_RECORD = recordColumns("strftime('%Y-%m-%dT%H:%M:%fZ', next_at / 1000.0, 'unixepoch')");
const POSTGRES_RECORD = recordColumns(`to_char(to_timestamp(next_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
const records = (name: string, sqlite: string, postgres: string) =>
  query<DeliveryRecord>(name, `SELECT ${SQLITE_RECORD} FROM webhook_deliveries ${sqlite}`, { postgres: `SELECT ${POSTGRES_RECORD} FROM webhook_deliveries ${postgres}` });

const insert = query('insert delivery', `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, event, state, next_at, created_at)
  VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`);
// Only enabled webhooks' deliveries fall due: a disabled one's wait until a replace enables it again.
const DUE = `SELECT d.id, d.webhook_id, d.event, d.attempts FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
  WHERE d.state = 'pending' AND w.status = 'enabled' AND d.next_at <= ? ORDER BY d.next_at, d.seq LIMIT ?`;
type DueRow = Omit<DueDelivery, 'event'> & { event: string };
const anyDueNow = query<DueRow>('any delivery due', DUE);
// A delivery another replica is claiming is skipped, so no two replicas send one delivery.
const due = query<DueRow>('due deliveries', DUE, {
  postgres: DUE.replace('<= ?', '<= $1').replace('LIMIT ?', 'LIMIT $2 FOR UPDATE OF d SKIP LOCKED'),
});
/** A claimed delivery is due again once its lease ends: sent again if its attempt was never recorded (a killed engine). */
const lease = query('lease delivery', "UPDATE webhook_deliveries SET next_at = ? WHERE id = ? AND state = 'pending'");
const upcoming = query<number>('next delivery due', `SELECT d.next_at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
  WHERE d.state = 'pending' AND w.status = 'enabled' ORDER BY d.next_at, d.seq LIMIT 1`, { pluck: true });
const attemptedOne = query('record attempt', `UPDATE webhook_deliveries SET state = @state, attempts = attempts + 1, next_at = @next_at, last_status = @status,
  latency_ms = @latency, error = @error, body = @body, attempted_at = @at WHERE id = @id`);
const prune = query('prune deliveries', `DELETE FROM webhook_deliveries WHERE webhook_id = @webhook AND state != 'pending' AND seq NOT IN
  (SELECT seq FROM webhook_deliveries WHERE webhook_id = @webhook AND state != 'pending' ORDER BY seq DESC LIMIT @kept)`);
const lastFinished = query<DeliveryState>('last finished deliveries', `SELECT state FROM webhook_deliveries WHERE webhook_id = ? AND state != 'pending'
  ORDER BY seq DESC LIMIT ?`, { pluck: true });
const recentOf = records('recent deliveries', 'WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?', 'WHERE webhook_id = $1 ORDER BY seq DESC LIMIT $2');
const one = records('delivery', 'WHERE id = ?', 'WHERE id = $1');
const eventOfOne = query<{ webhook_id: string; event: string }>('delivery event', 'SELECT webhook_id, event FROM webhook_deliveries WHERE id = ?');

const dueOf = (row: DueRow): DueDelivery => ({ ...row, event: JSON.parse(row.event) as DeliveredEvent });

function* inserting(id: string, webhookId: string, event: DeliveredEvent): Unit<void> {
  yield* tx.run(insert, [id, webhookId, event.id, event.type, JSON.stringify(event), Date.now(), nowIso()]);
}

function* claiming(limit: number, leaseMs: number): Unit<DueDelivery[]> {
  const now = Date.now();
  const rows = yield* tx.all(due, [now, limit]);
  for (const row of rows) yield* tx.run(lease, [now + leaseMs, row.id]);
  return rows.map(dueOf);
}

/**
 * What an attempt changes; when the webhook's last `streak` finished deliveries all exhausted, the webhook is disabled
 * in the same unit, so no reader sees the last failure recorded and the webhook still on. Answers whether it was.
 */
function* recording(delivery: DueDelivery, outcome: AttemptOutcome, state: DeliveryState, retryAt: number | null, pruning: boolean, streak: number): Unit<boolean> {
  yield* tx.run(attemptedOne, { id: delivery.id, state, next_at: retryAt ?? 0, status: outcome.status, latency: Math.round(outcome.latencyMs), error: outcome.error, body: outcome.body, at: nowIso() });
  if (pruning) yield* tx.run(prune, { webhook: delivery.webhook_id, kept: KEPT_FINISHED });
  if (state !== 'exhausted') return false;
  const last = yield* tx.all(lastFinished, [delivery.webhook_id, streak]);
  return last.length === streak && last.every((kept) => kept === 'exhausted') && (yield* disablingWebhook(delivery.webhook_id));
}

export class DeliveryStore {
  private readonly listeners = new Set<(webhookId: string) => void>();
  /** Deliveries finished per webhook since its last prune. */
  private readonly finishedSincePrune = new Map<string, number>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly outbox: EventOutbox,
    private readonly webhooks: WebhookStore,
  ) {}

  /**
   * Turns the outbox's events into deliveries to the webhooks that want them now, each batch in one unit: all of them,
   * or those of the oldest `rows` outbox rows (a row holds one event, or a batch of reads).
   */
  async handOver(rows = Number.POSITIVE_INFINITY): Promise<void> {
    for (let left = rows; left > 0; left -= HANDOVER_BATCH) {
      const batch = Math.min(left, HANDOVER_BATCH);
      const { handed, to } = await this.units.run(() => this.handingOver(batch));
      for (const webhookId of to) this.changed(webhookId);
      if (handed < batch) return;
    }
  }

  /** Whether some delivery is due now (one in flight is not: its claim put it off). */
  async anyDue(): Promise<boolean> {
    return (await this.units.read(() => tx.get(anyDueNow, [Date.now(), 1]))) !== undefined;
  }

  /** A delivery of `event` to one webhook, due at once (the workbench's test event, a redelivery). */
  async add(webhookId: string, event: DeliveredEvent): Promise<DeliveryRecord> {
    const id = randomUUID();
    const record = await this.units.run(function* () {
      yield* inserting(id, webhookId, event);
      return (yield* tx.get(one, [id]))!;
    });
    this.changed(webhookId);
    return record;
  }

  /**
   * Claims up to `limit` deliveries due now for one attempt each: until `leaseMs` from now no other runner (another
   * replica) gets them; then, if the attempt was never recorded, they fall due again.
   */
  async claim(limit: number, leaseMs: number): Promise<DueDelivery[]> {
    return await this.units.run(() => claiming(limit, leaseMs));
  }

  /** When the next delivery falls due (epoch ms), or null when none waits. */
  async nextDueAt(): Promise<number | null> {
    return (await this.units.read(() => tx.get(upcoming))) ?? null;
  }

  /**
   * Records an attempt: delivered, tried again at `retryAt`, or exhausted when `retryAt` is null. Answers whether that
   * disabled the webhook, its last `streak` finished events all exhausted.
   */
  async attempted(delivery: DueDelivery, outcome: AttemptOutcome, delivered: boolean, retryAt: number | null, streak: number): Promise<boolean> {
    const state: DeliveryState = delivered ? 'delivered' : retryAt === null ? 'exhausted' : 'pending';
    const finished = state === 'pending' ? undefined : (this.finishedSincePrune.get(delivery.webhook_id) ?? 0) + 1;
    const disabled = await this.units.run(() => recording(delivery, outcome, state, retryAt, finished === PRUNE_EVERY, streak));
    if (finished !== undefined) this.finishedSincePrune.set(delivery.webhook_id, finished % PRUNE_EVERY);
    if (disabled) this.webhooks.disabled(delivery.webhook_id);
    this.changed(delivery.webhook_id);
    return disabled;
  }

  /** Gives a claimed delivery back, due at once (a stop cancelled its attempt: the next start sends it). */
  async release(delivery: DueDelivery): Promise<void> {
    await this.units.run(() => tx.run(lease, [Date.now(), delivery.id]));
  }

  /** A webhook's deliveries, newest first. */
  async recent(webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    return await this.units.read(() => tx.all(recentOf, [webhookId, limit]));
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    return await this.units.read(() => tx.get(one, [id]));
  }

  /** The event a delivery carries, and the webhook it goes to. */
  async eventOf(id: string): Promise<{ webhook_id: string; event: DeliveredEvent } | undefined> {
    const row = await this.units.read(() => tx.get(eventOfOne, [id]));
    return row && { webhook_id: row.webhook_id, event: JSON.parse(row.event) as DeliveredEvent };
  }

  /** Hears the webhook of each delivery queued or attempted (the workbench's live feed). */
  onChange(listener: (webhookId: string) => void): void {
    this.listeners.add(listener);
  }

  /** One batch of the hand-over: the outbox rows it took, and the webhooks that got deliveries. */
  private *handingOver(rows: number): Unit<{ handed: number; to: Set<string> }> {
    const events = yield* this.outbox.taking(rows);
    const to = new Set<string>();
    for (const { seq, event } of events) {
      for (const webhook of this.webhooks.wanting(event.type)) {
        yield* inserting(randomUUID(), webhook.id, event);
        to.add(webhook.id);
      }
      yield* this.outbox.handedOver(seq);
    }
    return { handed: new Set(events.map((e) => e.seq)).size, to };
  }

  private changed(webhookId: string): void {
    for (const listener of this.listeners) listener(webhookId);
  }
}
