/**
 * The webhooks in SQLite (migration 24), all held in memory as well: there are at most five, and every event raised
 * asks which of them want it. Each change tells the outbox which event types an enabled webhook wants, so an event no
 * webhook wants is never stored.
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import type { EventType } from '../events/event-types';
import type { EventOutbox } from '../events/event-outbox';
import { ApiProblem } from '../server/problem';
import type { Db } from '../storage/database';
import { MAX_WEBHOOKS, type StoredWebhook, type WebhookDefinition } from './webhook-model';
import { query } from '../storage/unit';

/** The vault's wipe: every webhook goes, its deliveries with it (WebhookStore.forgetAll once committed). */
export const deleteAllWebhooks = query('delete all webhooks', 'DELETE FROM webhooks');

type WebhookRow = Omit<StoredWebhook, 'events'> & { events: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class WebhookStore {
  private readonly byId = new Map<string, StoredWebhook>();
  private readonly stmt;

  constructor(
    readonly db: Db,
    private readonly outbox: EventOutbox,
  ) {
    this.stmt = {
      insert: db.prepare(`INSERT INTO webhooks (id, name, url, notify_email, events, status, created_by, created_at)
        VALUES (@id, @name, @url, @notify_email, @events, @status, @created_by, @created_at)`),
      update: db.prepare(`UPDATE webhooks SET name = @name, url = @url, notify_email = @notify_email, events = @events,
        status = @status, modified_by = @modified_by, modified_at = @modified_at WHERE id = @id`),
      status: db.prepare('UPDATE webhooks SET status = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM webhooks WHERE id = ?'),
      deleteAll: db.prepare(deleteAllWebhooks.sql),
    };
    for (const row of db.prepare('SELECT * FROM webhooks ORDER BY created_at, id').all() as WebhookRow[]) {
      this.byId.set(row.id, { ...row, events: JSON.parse(row.events) as EventType[] });
    }
    this.subscribe();
  }

  create(definition: WebhookDefinition, createdBy: string): StoredWebhook {
    if (this.byId.size >= MAX_WEBHOOKS) {
      throw new ApiProblem(422, `A tenant has at most ${MAX_WEBHOOKS} webhooks: delete one (DELETE /webhooks/{id}) or subscribe an existing one to more events`);
    }
    const webhook: StoredWebhook = {
      ...definition,
      status: 'enabled',
      id: randomUUID(),
      created_by: createdBy,
      created_at: nowIso(),
      modified_by: null,
      modified_at: null,
    };
    this.stmt.insert.run({ ...webhook, events: JSON.stringify(webhook.events) });
    return this.changed(webhook);
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
  replace(id: string, definition: WebhookDefinition, modifiedBy: string): StoredWebhook {
    const old = this.require(id);
    const webhook: StoredWebhook = { ...old, ...definition, status: definition.status ?? old.status, modified_by: modifiedBy, modified_at: nowIso() };
    this.stmt.update.run({ ...webhook, events: JSON.stringify(webhook.events) });
    return this.changed(webhook);
  }

  /** Turned off by the service after repeated failure: it stays so until a replace enables it. */
  disable(id: string): void {
    const webhook = this.byId.get(id);
    if (!webhook || webhook.status === 'disabled') return;
    this.stmt.status.run('disabled', id);
    this.changed({ ...webhook, status: 'disabled' });
  }

  /** Removes the webhook and, with it, its deliveries (pending ones too). */
  delete(id: string): void {
    const webhook = this.require(id);
    this.stmt.delete.run(webhook.id);
    this.byId.delete(webhook.id);
    this.subscribe();
  }

  deleteAll(): number {
    const removed = this.stmt.deleteAll.run().changes;
    this.forgetAll();
    return removed;
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

  private changed(webhook: StoredWebhook): StoredWebhook {
    this.byId.set(webhook.id, webhook);
    this.subscribe();
    return webhook;
  }

  private subscribe(): void {
    this.outbox.subscribe(this.list().flatMap((webhook) => (webhook.status === 'enabled' ? webhook.events : [])));
  }
}
