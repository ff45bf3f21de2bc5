import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { nowIso } from '../clock';
import { query, tx, type Unit } from '../storage/unit';
import type { EventType } from './event-types';

/**
 * How long a read's event may wait to be stored with others, and how many may wait: a read needs no commit of its
 * own, and a commit per request is most of what a subscribed token.read would cost.
 */
const READ_BATCH_MS = 20;
const READ_BATCH_MAX = 1000;

/** Who caused an event, as the vendor's envelope names them. */
export interface EventActor {
  id: string;
  name?: string;
  type: 'application' | 'user' | 'admin' | 'system';
}

/** What caused a change: the actor and trace id of every event it raises (`actor` absent when nobody authenticated). */
export interface EventCause {
  actor?: EventActor;
  traceId: string | null;
}

/** The engine acting on its own (an expiry, a purge): no request caused it. */
export const SYSTEM_CAUSE: EventCause = { actor: { id: 'system', name: 'Tokenbench', type: 'system' }, traceId: null };

/** The workbench's owner (the desktop app, the session serve prints), who acts on the engine directly, as the hosted service's portal user does; a named person's cause is workbenchCause()'s. */
export const WORKBENCH_CAUSE: EventCause = { actor: { id: 'workbench', name: 'Tokenbench workbench', type: 'user' }, traceId: null };

/** The `event` member of a delivery's envelope: the same on every attempt (its id too). */
export interface OutboxEvent {
  id: string;
  tenant_id: string;
  type: EventType;
  timestamp: string;
  trace_id: string | null;
  data: Record<string, unknown> & { actor?: EventActor };
}

/**
 * Events of one type raised together by one read (a proxy call's tokens), as a batch stores them: what they share once,
 * and each one's `data`. Each gets its id when it is handed over, and keeps it on every delivery.
 */
interface RaisedTogether {
  type: EventType;
  timestamp: string;
  trace_id: string | null;
  actor?: EventActor;
  data: Record<string, unknown>[];
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

const insertEvent = query('store event', 'INSERT INTO event_outbox (event) VALUES (?)');

/**
 * The events the engine raised and has not yet handed to their webhooks. `raise` writes on the caller's database
 * connection, and `store` is a statement of the caller's unit, so a change made in a transaction and the event it
 * raises commit or roll back together (a BETA transaction's write raises its event when the write is applied at commit,
 * never before). Readers are woken after the current turn, when the raising transaction has ended one way or the other.
 */
export class EventOutbox {
  private readonly stmt: {
    insert: Database.Statement;
    pending: Database.Statement;
    remove: Database.Statement;
  };
  /** Events of reads waiting to be stored together (see raiseSoon), and how many there are. */
  private soon: RaisedTogether[] = [];
  private soonCount = 0;
  private readonly storeSoon: () => void;
  private wanted: ReadonlySet<EventType> = new Set();
  private readonly listeners: (() => void)[] = [];
  private wakeQueued = false;

  constructor(
    db: Database.Database,
    private readonly tenantId: string,
  ) {
    this.stmt = {
      insert: db.prepare(insertEvent.sql),
      pending: db.prepare('SELECT seq, event FROM event_outbox ORDER BY seq LIMIT ?'),
      remove: db.prepare('DELETE FROM event_outbox WHERE seq = ?'),
    };
    this.storeSoon = () => {
      const events = this.soon;
      this.soon = [];
      this.soonCount = 0;
      // Already stored by a full batch's flush; and a stop closes the database at once: its last reads raise nothing.
      if (events.length === 0 || !db.open) return;
      // One row for the batch: a read raises many events (a proxy call one per token), and a row each would cost
      // each of them a write.
      this.stmt.insert.run(JSON.stringify(events));
      this.wakeSoon();
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
  raise(raised: RaisedEvent): void {
    if (!this.wanted.has(raised.type)) return;
    this.insert(this.eventOf(raised));
    this.wakeSoon();
  }

  /**
   * The same as a statement of the unit that makes the change, so that both commit or roll back together whichever
   * driver runs it. The unit's caller wakes the readers once it has committed (see committed).
   */
  *store(raised: RaisedEvent): Unit<void> {
    if (this.wanted.has(raised.type)) yield* tx.run(insertEvent, [JSON.stringify(this.eventOf(raised))]);
  }

  /**
   * For what changes nothing (a read): one event of `type` per `data`, stored with the others raised within
   * READ_BATCH_MS in one row, so that a stream of reads costs a write per batch instead of one per request, and a read
   * of many tokens costs little more than a read of one. Unless no subscription wants the type.
   */
  raiseSoon(type: EventType, data: Record<string, unknown>[], { actor, traceId }: EventCause): void {
    if (!this.wanted.has(type) || data.length === 0) return;
    const queued = this.soon.push({ type, timestamp: nowIso(), trace_id: traceId ?? null, ...(actor && { actor }), data });
    const before = this.soonCount;
    this.soonCount += data.length;
    if (queued === 1) setTimeout(this.storeSoon, READ_BATCH_MS).unref();
    else if (before < READ_BATCH_MAX && this.soonCount >= READ_BATCH_MAX) setImmediate(this.storeSoon);
  }

  private eventOf({ type, data, actor, traceId }: RaisedEvent): OutboxEvent {
    return {
      id: randomUUID(),
      tenant_id: this.tenantId,
      type,
      timestamp: nowIso(),
      trace_id: traceId ?? null,
      data: actor ? { ...data(), actor } : data(),
    };
  }

  private insert(event: OutboxEvent): void {
    this.stmt.insert.run(JSON.stringify(event));
  }

  /** Called once after the turn in which events were raised. */
  onRaised(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The oldest events still to hand over, from at most `limit` rows (a batch of reads is one row: its events share its seq). */
  pending(limit: number): PendingEvent[] {
    return (this.stmt.pending.all(limit) as { seq: number; event: string }[]).flatMap(({ seq, event }): PendingEvent[] => {
      const stored = JSON.parse(event) as OutboxEvent | RaisedTogether[];
      if (!Array.isArray(stored)) return [{ seq, event: stored }];
      return stored.flatMap(({ type, timestamp, trace_id, actor, data }) =>
        data.map((one) => ({ seq, event: { id: randomUUID(), tenant_id: this.tenantId, type, timestamp, trace_id, data: actor ? { ...one, actor } : one } })),
      );
    });
  }

  /** Forgets an event (a batch: all its events) once its deliveries are stored (call in the same transaction as storing them). */
  handedOver(seq: number): void {
    this.stmt.remove.run(seq);
  }

  /**
   * Called once a unit that may have stored events (see store) has committed: wakes the readers after the current turn,
   * unless no subscription wants anything (then the unit stored nothing).
   */
  committed(): void {
    if (this.wanted.size > 0) this.wakeSoon();
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
