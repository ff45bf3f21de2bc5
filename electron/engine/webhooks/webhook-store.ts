/**
 * The webhooks, all held in memory as well as in the database: there are at most five, and every event raised asks
 * which of them want it, which must not wait for the database. Each change tells the outbox which event types an
 * enabled webhook wants, so an event no webhook wants is never stored.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import type { EventType } from '../events/event-types';
import type { EventOutbox } from '../events/event-outbox';
import { ApiProblem } from '../server/problem';
import { keepRowsCoherent } from '../storage/coherent-memory';
import { query, tx, type AnyUnitRunner, type Query, type Unit } from '../storage/unit';
import { MAX_WEBHOOKS, type StoredWebhook, type WebhookDefinition } from './webhook-model';

/** The vault's wipe: every webhook goes, its deliveries with it (WebhookStore.forgetAll once committed). */
export const deleteAllWebhooks = query('delete all webhooks', 'DELETE FROM webhooks');

type WebhookRow = Omit<StoredWebhook, 'events'> & { events: string };

/** The change feed's channel of the webhook units, naming the webhook changed. */
const CHANNEL = 'webhooks';

const every = query<WebhookRow>('every webhook', 'SELECT * FROM webhooks ORDER BY created_at, id');
const one = query<WebhookRow>('webhook by id', 'SELECT * FROM webhooks WHERE id = ?');
// Two replicas creating at once must not both pass the limit: PostgreSQL serializes the count and its insert on an
// advisory lock; SQLite's writer already runs alone.
const lockCount = query('lock the webhook count', 'SELECT 1', { postgres: "SELECT pg_advisory_xact_lock(hashtext('tokenbench.webhooks'))" });
const count = query<number>('count webhooks', 'SELECT COUNT(*) FROM webhooks', { pluck: true });
const insert = query('insert webhook', `INSERT INTO webhooks (id, name, url, notify_email, events, status, created_by, created_at)
  VALUES (@id, @name, @url, @notify_email, @events, @status, @created_by, @created_at)`);
const update = query('update webhook', `UPDATE webhooks SET name = @name, url = @url, notify_email = @notify_email, events = @events,
  status = @status, modified_by = @modified_by, modified_at = @modified_at WHERE id = @id`);
const disableOne = query('disable webhook', "UPDATE webhooks SET status = 'disabled' WHERE id = ? AND status = 'enabled'");
const deleteOne = query('delete webhook', 'DELETE FROM webhooks WHERE id = ?');

const rowOf = (webhook: StoredWebhook) => ({ ...webhook, events: JSON.stringify(webhook.events) });
const webhookOf = (row: WebhookRow): StoredWebhook => ({ ...row, events: JSON.parse(row.events) as EventType[] });

/** One statement on the webhook `id`, noticed by the other replicas when it changed a row: how many it changed. */
function* changing(id: string, statement: Query, params: object): Unit<number> {
  const { changes } = yield* tx.run(statement, params);
  if (changes > 0) yield* tx.notify(CHANNEL, id);
  return changes;
}
/** Turns the webhook off after repeated failure, in the unit that recorded the last one: whether it was on. */
export function* disablingWebhook(id: string): Unit<boolean> {
  return (yield* changing(id, disableOne, [id])) > 0;
}

const LIMIT_REACHED = `A tenant has at most ${MAX_WEBHOOKS} webhooks: delete one (DELETE /webhooks/{id}) or subscribe an existing one to more events`;

function* creating(webhook: StoredWebhook): Unit<void> {
  yield* tx.get(lockCount);
  if (((yield* tx.get(count)) ?? 0) >= MAX_WEBHOOKS) throw new ApiProblem(422, LIMIT_REACHED);
  yield* changing(webhook.id, insert, rowOf(webhook));
}

function* replacing(webhook: StoredWebhook): Unit<boolean> {
  return (yield* changing(webhook.id, update, rowOf(webhook))) > 0;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class WebhookStore {
  private readonly byId = new Map<string, StoredWebhook>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly outbox: EventOutbox,
  ) {
    keepRowsCoherent(units, CHANNEL, one, (id, row) => (row ? this.settle(id, webhookOf(row)) : this.settle(id, undefined)), () => this.load());
  }

  /** Reads every webhook into memory; once, before anything asks which webhooks want an event, and again when notices were lost. */
  async load(): Promise<void> {
    const rows = await this.units.read(() => tx.all(every));
    this.byId.clear();
    for (const row of rows) this.byId.set(row.id, webhookOf(row));
    this.subscribe();
  }

  async create(definition: WebhookDefinition, createdBy: string): Promise<StoredWebhook> {
    if (this.byId.size >= MAX_WEBHOOKS) throw new ApiProblem(422, LIMIT_REACHED);
    const webhook: StoredWebhook = {
      ...definition,
      status: 'enabled',
      id: randomUUID(),
      created_by: createdBy,
      created_at: nowIso(),
      modified_by: null,
      modified_at: null,
    };
    await this.units.run(() => creating(webhook));
    return this.settle(webhook.id, webhook);
  }

  /** 404 for an unknown id, and for one that is no UUID. */
  require(id: string): StoredWebhook {
    const webhook = UUID.test(id) ? this.byId.get(id.toLowerCase()) : undefined;
    if (!webhook) throw new ApiProblem(404, `No webhook ${id}`);
    return webhook;
  }

  get(id: string): StoredWebhook | undefined {
    return this.byId.get(id);
  }

  /** A replace: every field given, and the status kept unless one is given (only a replace re-enables a webhook). */
  async replace(id: string, definition: WebhookDefinition, modifiedBy: string): Promise<StoredWebhook> {
    const old = this.require(id);
    const webhook: StoredWebhook = { ...old, ...definition, status: definition.status ?? old.status, modified_by: modifiedBy, modified_at: nowIso() };
    if (!(await this.units.run(() => replacing(webhook)))) {
      this.settle(old.id, undefined);
      throw new ApiProblem(404, `No webhook ${id}`);
    }
    return this.settle(webhook.id, webhook);
  }

  /** Turned off by the service after repeated failure: it stays so until a replace enables it. */
  async disable(id: string): Promise<void> {
    const webhook = this.byId.get(id);
    if (!webhook || webhook.status === 'disabled') return;
    if (await this.units.run(() => disablingWebhook(id))) this.disabled(id);
  }

  /** Once a unit that disabled the webhook (disablingWebhook) has committed. */
  disabled(id: string): void {
    const webhook = this.byId.get(id);
    if (webhook) this.settle(id, { ...webhook, status: 'disabled' });
  }

  /** Removes the webhook and, with it, its deliveries (pending ones too). */
  async delete(id: string): Promise<void> {
    const webhook = this.require(id);
    await this.units.run(() => changing(webhook.id, deleteOne, [webhook.id]));
    this.settle(webhook.id, undefined);
  }

  async deleteAll(): Promise<number> {
    const { changes } = await this.units.run(() => tx.run(deleteAllWebhooks));
    this.forgetAll();
    return changes;
  }

  /** After the vault's wipe (deleteAllWebhooks): none is left to want events. */
  forgetAll(): void {
    this.byId.clear();
    this.subscribe();
  }

  /** In creation order. */
  list(): StoredWebhook[] {
    return [...this.byId.values()];
  }

  /** The enabled webhooks that want events of `type`. */
  wanting(type: EventType): StoredWebhook[] {
    return this.list().filter((webhook) => webhook.status === 'enabled' && webhook.events.includes(type));
  }

  /** The one place memory follows a committed change: the webhook as it now is, or undefined once it is gone. */
  private settle(id: string, webhook: StoredWebhook): StoredWebhook;
  private settle(id: string, webhook: undefined): undefined;
  private settle(id: string, webhook: StoredWebhook | undefined): StoredWebhook | undefined {
    if (webhook) this.byId.set(id, webhook);
    else this.byId.delete(id);
    this.subscribe();
    return webhook;
  }

  private subscribe(): void {
    this.outbox.subscribe(this.list().flatMap((webhook) => (webhook.status === 'enabled' ? webhook.events : [])));
  }
}
