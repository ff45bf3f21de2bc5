import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import type { EventActor, EventCause, EventOutbox } from '../events/event-outbox';
import type { Db } from '../storage/database';
import type { TenantSettingsMap } from '../../../shared/workbench/tenant-contract';
import { rulesOf, settingsMap, type TenantRules, type TenantSettings } from './tenant-settings';

/** The tenant as GET /tenants/self answers it. */
export interface Tenant {
  id: string;
  owner_id: string;
  name: string;
  type: 'test';
  settings: TenantSettingsMap;
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
}

interface TenantRow {
  id: string;
  owner_id: string;
  name: string;
  settings: string;
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

/** A new tenant's name. */
export const DEFAULT_TENANT_NAME = 'Tokenbench';

export interface TenantChange {
  name: string;
  settings: TenantSettings;
}

/**
 * The engine's one tenant: its name and settings, kept in the vault and held in memory, where the vault and the proxy
 * read its rules at each request. Its owner stands for the workbench's user, the one person a laptop's tenant has.
 */
export class TenantStore {
  private row!: TenantRow;
  /** What the settings decide now; replaced whole by each change. */
  rules!: TenantRules;
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly id: string,
    private readonly outbox: EventOutbox,
  ) {
    this.stmt = {
      get: db.prepare('SELECT * FROM tenant WHERE id = ?'),
      insert: db.prepare(
        `INSERT INTO tenant (id, owner_id, name, settings, created_by, created_at) VALUES (@id, @owner_id, @name, '{}', @owner_id, @created_at)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, settings = excluded.settings, created_at = excluded.created_at,
           modified_by = NULL, modified_at = NULL`,
      ),
      update: db.prepare('UPDATE tenant SET name = @name, settings = @settings, modified_by = @modified_by, modified_at = @modified_at WHERE id = @id'),
    };
    if (!this.stmt.get.get(id)) this.stmt.insert.run({ id, owner_id: randomUUID(), name: DEFAULT_TENANT_NAME, created_at: nowIso() });
    this.reload();
  }

  /** Reads the row again: after a change that may have rolled back, the memory holds what the vault holds. */
  reload(): void {
    this.row = this.stmt.get.get(this.id) as TenantRow;
    this.rules = rulesOf(this.settings());
  }

  private settings(): TenantSettings {
    return JSON.parse(this.row.settings) as TenantSettings;
  }

  /** The workbench's user, as events and `modified_by` name the changes made in Settings. */
  get owner(): EventActor {
    return { id: this.row.owner_id, type: 'user' };
  }

  view(): Tenant {
    const { id, owner_id, name, created_by, created_at, modified_by, modified_at } = this.row;
    const tenant: Tenant = { id, owner_id, name, type: 'test', settings: settingsMap(this.settings()), created_by, created_at };
    if (modified_by !== null && modified_at !== null) Object.assign(tenant, { modified_by, modified_at });
    return tenant;
  }

  /**
   * Replaces the name and the whole settings map (a key left out goes back to its default) and raises
   * `tenant.updated` in the same transaction; the rules apply from the next request.
   */
  update(change: TenantChange, { actor, traceId }: EventCause): Tenant {
    try {
      this.db.transaction(() => {
        this.stmt.update.run({ id: this.id, name: change.name, settings: JSON.stringify(change.settings), modified_by: actor?.id ?? this.owner.id, modified_at: nowIso() });
        this.row = this.stmt.get.get(this.id) as TenantRow;
        this.outbox.raise({
          type: 'tenant.updated',
          data: () => {
            const { id, name, created_by, created_at, modified_by, modified_at } = this.view();
            return { tenant: { id, name, created_by, created_at, modified_by, modified_at } };
          },
          actor,
          traceId,
        });
      })();
    } finally {
      this.reload();
    }
    return this.view();
  }

  /** Makes it a new tenant again (a deletion's): the default name and settings, created now; its id and owner stay. */
  reset(): void {
    this.stmt.insert.run({ id: this.id, owner_id: this.row.owner_id, name: DEFAULT_TENANT_NAME, created_at: nowIso() });
    this.reload();
  }
}
