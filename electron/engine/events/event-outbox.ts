import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { nowIso } from '../clock';
import type { EventType } from './event-types';

/** Who caused an event, as the vendor's envelope names them. */
export interface EventActor {
  id: string;
  name?: string;
  type: 'application' | 'user' | 'admin' | 'system';
}

/** The `event` member of a delivery's envelope: the same on every attempt (its id too). */
export interface OutboxEvent {
  id: string;
  tenant_id: string;
  type: EventType;
  timestamp: string;
  trace_id: string | null;
  data: Record<string, unknown> & { actor?: EventActor };
}

export interface PendingEvent {
  seq: number;
  event: OutboxEvent;
}

/** What a change tells the outbox; `data` is built only when some subscription wants the type. */
export interface RaisedEvent {
  type: EventType;
  data: () => Record<string, unknown>;
  actor?: EventActor;
  traceId?: string | null;
}

/**
 * The events the engine raised and has not yet handed to their webhooks. `raise` writes on the caller's database
 * connection, so a change made in a transaction and the event it raises commit or roll back together (a BETA
 * transaction's write raises its event when the write is applied at commit, never before). Readers are woken after the
 * current turn, when the raising transaction has ended one way or the other.
 */
export class EventOutbox {
  private readonly stmt: {
    insert: Database.Statement;
    pending: Database.Statement;
    remove: Database.Statement;
  };
  private wanted: ReadonlySet<EventType> = new Set();
  private readonly listeners: (() => void)[] = [];
  private wakeQueued = false;

  constructor(
    db: Database.Database,
    private readonly tenantId: string,
  ) {
    this.stmt = {
      insert: db.prepare('INSERT INTO event_outbox (id, type, event, created_at) VALUES (?, ?, ?, ?)'),
      pending: db.prepare('SELECT seq, event FROM event_outbox ORDER BY seq LIMIT ?'),
      remove: db.prepare('DELETE FROM event_outbox WHERE seq = ?'),
    };
  }

  /** The types some enabled subscription wants; the webhooks set it whenever a subscription changes. */
  subscribe(types: Iterable<EventType>): void {
    this.wanted = new Set(types);
  }

  /** Whether raising `type` would store anything: a caller may skip gathering what only the event needs. */
  wants(type: EventType): boolean {
    return this.wanted.has(type);
  }

  /** Stores the event, unless no subscription wants its type (then it never existed for anyone). */
  raise({ type, data, actor, traceId }: RaisedEvent): void {
    if (!this.wanted.has(type)) return;
    const event: OutboxEvent = {
      id: randomUUID(),
      tenant_id: this.tenantId,
      type,
      timestamp: nowIso(),
      trace_id: traceId ?? null,
      data: actor ? { ...data(), actor } : data(),
    };
    this.stmt.insert.run(event.id, type, JSON.stringify(event), event.timestamp);
    this.wakeSoon();
  }

  /** Called once after the turn in which events were raised. */
  onRaised(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The oldest events still to hand over, at most `limit`. */
  pending(limit: number): PendingEvent[] {
    return (this.stmt.pending.all(limit) as { seq: number; event: string }[]).map(({ seq, event }) => ({ seq, event: JSON.parse(event) as OutboxEvent }));
  }

  /** Forgets an event once its deliveries are stored (call in the same transaction as storing them). */
  handedOver(seq: number): void {
    this.stmt.remove.run(seq);
  }

  private wakeSoon(): void {
    if (this.wakeQueued || this.listeners.length === 0) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      for (const listener of this.listeners) listener();
    });
  }
}
