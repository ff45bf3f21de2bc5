import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import { query, tx, type AnyUnitRunner, type Params, type Query, type Unit } from '../storage/unit';
import type { ChangeNotice } from '../storage/change-feed';
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
 * Events of one type raised together by one read, as a batch stored them before ReadBatch (an outbox row may still hold
 * them after an upgrade): what they share once, and each one's `data`.
 */
interface RaisedTogether {
  type: EventType;
  timestamp: string;
  trace_id: string | null;
  actor?: EventActor;
  data: Record<string, unknown>[];
}

/**
 * The token.read events of the reads of one batch, as one outbox row holds them: flat arrays, so that a read costs a
 * few pushes and little JSON. Per read, `groups` holds its time (epoch ms), its actor's index in `actors` (-1 for
 * none), its trace id and how many tokens it read; `tokens` holds each token's id and type, in order. Each event gets
 * its id when it is handed over, and keeps it on every delivery.
 */
interface ReadBatch {
  actors: EventActor[];
  groups: (number | string | null)[];
  tokens: string[];
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
// Rows a replica is handing over are skipped by another's, so each event becomes its deliveries once.
const oldest = query<{ seq: number; event: string }>('oldest events', 'SELECT seq, event FROM event_outbox ORDER BY seq LIMIT ?', {
  postgres: 'SELECT seq, event FROM event_outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED',
});
const removeEvent = query('forget event', 'DELETE FROM event_outbox WHERE seq = ?');

/**
 * The events the engine raised and has not yet handed to their webhooks. `store` is a statement of the caller's unit,
 * and `raise` joins the caller's open SQLite transaction, so a change made in a transaction and the event it
 * raises commit or roll back together (a BETA transaction's write raises its event when the write is applied at commit,
 * never before). Readers are woken after the current turn, when the raising transaction has ended one way or the other.
 */
export class EventOutbox {
  /** Reads' events waiting to be stored together (see raiseReads), and their actors' indexes by id. */
  private soon = emptyBatch();
  private soonActors = new Map<string, number>();
  private readonly storeSoon: () => void;
  private wanted: ReadonlySet<EventType> = new Set();
  private readonly listeners: (() => void)[] = [];
  private wakeQueued = false;
  private closed = false;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly tenantId: string,
  ) {
    this.storeSoon = () => {
      const batch = this.soon;
      this.soon = emptyBatch();
      this.soonActors = new Map();
      // Already stored by a full batch's flush; and a stop closes the database at once: its last reads raise nothing.
      if (batch.groups.length === 0 || this.closed) return;
      // One row for the batch: a read raises many events (a proxy call one per token), and a row each would cost
      // each of them a write.
      void Promise.resolve(this.units.run(() => tx.run(insertEvent, [JSON.stringify({ reads: batch })]))).then(() => this.wakeSoon());
    };
  }

  /** The engine is stopping and closes its database: reads' events still waiting are not stored. */
  close(): void {
    this.closed = true;
  }

  /** The types some enabled subscription wants; the webhooks set it whenever a subscription changes. */
  subscribe(types: Iterable<EventType>): void {
    this.wanted = new Set(types);
  }

  /** Whether raising `type` would store anything: a caller may skip gathering what only the event needs. */
  wants(type: EventType): boolean {
    return this.wanted.has(type);
  }

  /**
   * Stores the event, unless no subscription wants its type (then it never existed for anyone). For a change still
   * written on SQLite's connection: SQLite's runner answers at once, within the caller's open transaction. A change
   * written as a unit yields `store` instead.
   */
  raise(raised: RaisedEvent): void {
    if (!this.wanted.has(raised.type)) return;
    void this.units.run(() => this.store(raised));
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
   * A change of one statement, the event it raises and its notice to the change feed, in the caller's unit: the event
   * and the notice only if a row changed.
   */
  *changing(statement: Query, params: Params, event: RaisedEvent | null, notice: ChangeNotice): Unit<number> {
    const { changes } = yield* tx.run(statement, params);
    if (changes === 0) return 0;
    if (event) yield* this.store(event);
    yield* tx.notify(notice.channel, notice.id);
    return changes;
  }

  /** The same as a unit of its own on the caller's runner, the readers woken once it has committed: how many rows changed. */
  async change(units: AnyUnitRunner, statement: Query, params: Params, event: RaisedEvent | null, notice: ChangeNotice): Promise<number> {
    const changes = await units.run(() => this.changing(statement, params, event, notice));
    this.committed();
    return changes;
  }


  /**
   * A read changes nothing: token.read for each token it read, stored with the reads of the next READ_BATCH_MS in one
   * row, so that a stream of reads costs a write per batch instead of one per request, and a read of many tokens
   * costs little more than a read of one. Unless no subscription wants token.read.
   */
  raiseReads(tokens: Iterable<{ id: string; type: string }>, { actor, traceId }: EventCause): void {
    if (!this.wanted.has('token.read')) return;
    const batch = this.soon;
    const before = batch.tokens.length;
    for (const { id, type } of tokens) batch.tokens.push(id, type);
    if (batch.tokens.length === before) return;
    batch.groups.push(Date.now(), actor ? this.actorIndex(actor) : -1, traceId ?? null, (batch.tokens.length - before) / 2);
    if (batch.groups.length === 4) setTimeout(this.storeSoon, READ_BATCH_MS).unref();
    else if (before < 2 * READ_BATCH_MAX && batch.tokens.length >= 2 * READ_BATCH_MAX) setImmediate(this.storeSoon);
  }

  /** The batch's index of `actor`: a stream of reads mostly has a few. */
  private actorIndex(actor: EventActor): number {
    const { actors } = this.soon;
    const known = this.soonActors.get(actor.id);
    if (known !== undefined && actors[known].name === actor.name && actors[known].type === actor.type) return known;
    this.soonActors.set(actor.id, actors.length);
    return actors.push(actor) - 1;
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

  /** Called once after the turn in which events were raised. */
  onRaised(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The oldest events still to hand over, from at most `limit` rows (a batch of reads is one row: its events share its seq). */
  async pending(limit: number): Promise<PendingEvent[]> {
    return await this.units.read(() => this.taking(limit));
  }

  /** The same in the unit that hands them over, which holds their rows until it has (see handedOver). */
  *taking(limit: number): Unit<PendingEvent[]> {
    return (yield* tx.all(oldest, [limit])).flatMap(({ seq, event }): PendingEvent[] => {
      const stored = JSON.parse(event) as OutboxEvent | RaisedTogether[] | { reads: ReadBatch };
      if ('reads' in stored) return this.readEvents(stored.reads).map((read) => ({ seq, event: read }));
      if (!Array.isArray(stored)) return [{ seq, event: stored }];
      return stored.flatMap(({ type, timestamp, trace_id, actor, data }) =>
        data.map((one) => ({ seq, event: { id: randomUUID(), tenant_id: this.tenantId, type, timestamp, trace_id, data: actor ? { ...one, actor } : one } })),
      );
    });
  }

  /** A batch's token.read events, each with a new id. */
  private readEvents({ actors, groups, tokens }: ReadBatch): OutboxEvent[] {
    const events: OutboxEvent[] = [];
    let at = 0;
    let timestamp = '';
    for (let g = 0; g < groups.length; g += 4) {
      // Reads of one millisecond share their time's text.
      if (g === 0 || groups[g] !== groups[g - 4]) timestamp = new Date(groups[g] as number).toISOString();
      const actor = actors[groups[g + 1] as number] as EventActor | undefined;
      const trace_id = groups[g + 2] as string | null;
      for (const end = at + 2 * (groups[g + 3] as number); at < end; at += 2) {
        const token = { id: tokens[at], type: tokens[at + 1] };
        events.push({ id: randomUUID(), tenant_id: this.tenantId, type: 'token.read', timestamp, trace_id, data: actor ? { token, actor } : { token } });
      }
    }
    return events;
  }

  /** Forgets an event (a batch: all its events) in the unit that stores its deliveries. */
  *handedOver(seq: number): Unit<void> {
    yield* tx.run(removeEvent, [seq]);
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

function emptyBatch(): ReadBatch {
  return { actors: [], groups: [], tokens: [] };
}
