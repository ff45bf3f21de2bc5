import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import type { EventActor, EventCause, EventOutbox } from '../events/event-outbox';
import { keepCoherent } from '../storage/coherent-memory';
import { type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';
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

export interface TenantRow {
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

/** The change feed's channel of the tenant's changes. */
const CHANNEL = 'tenant';

const q = {
  get: query<TenantRow>('tenant', 'SELECT * FROM tenant WHERE id = ?'),
  /** The first start's tenant; replicas starting together make it once. */
  create: query('create tenant', `INSERT INTO tenant (id, owner_id, name, settings, created_by, created_at) VALUES (@id, @owner_id, @name, '{}', @owner_id, @created_at)
    ON CONFLICT (id) DO NOTHING`),
  reset: query('reset tenant', `UPDATE tenant SET name = @name, settings = '{}', created_at = @created_at, modified_by = NULL, modified_at = NULL WHERE id = @id`),
  update: query('update tenant', 'UPDATE tenant SET name = @name, settings = @settings, modified_by = @modified_by, modified_at = @modified_at WHERE id = @id'),
};

/**
 * The engine's one tenant: its name and settings, kept in the vault and held in memory, where the vault and the proxy
 * read its rules at each request. Its owner stands for the workbench's user, the one person a laptop's tenant has.
 */
export class TenantStore {
  private row!: TenantRow;
  /** What the settings decide now; replaced whole by each change. */
  rules!: TenantRules;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly id: string,
    private readonly outbox: EventOutbox,
  ) {
    // Another replica's change applies from this one's next request too.
    const reload = async () => this.settle((await this.units.read(() => tx.get(q.get, [this.id])))!);
    keepCoherent(units.changes, { channel: CHANNEL, reloadOne: reload, reloadAll: reload });
  }

  /** Reads the tenant into memory, making it on the first start: once at start, before any request. */
  async load(): Promise<void> {
    const { id } = this;
    this.settle(
      await this.units.run(function* () {
        yield* tx.run(q.create, { id, owner_id: randomUUID(), name: DEFAULT_TENANT_NAME, created_at: nowIso() });
        return (yield* tx.get(q.get, [id]))!;
      }),
    );
  }

  /** The one place memory changes: the tenant as the database now holds it. */
  settle(row: TenantRow): void {
    this.row = row;
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
    return viewOf(this.row);
  }

  /**
   * Replaces the name and the whole settings map (a key left out goes back to its default) and raises
   * `tenant.updated` in the same transaction; the rules apply from the next request.
   */
  async update(change: TenantChange, { actor, traceId }: EventCause): Promise<Tenant> {
    const { id, outbox } = this;
    const fields = { id, name: change.name, settings: JSON.stringify(change.settings), modified_by: actor?.id ?? this.owner.id, modified_at: nowIso() };
    const row = await this.units.run(function* () {
      yield* tx.run(q.update, fields);
      yield* tx.notify(CHANNEL, id);
      const row = (yield* tx.get(q.get, [id]))!;
      const { name, created_by, created_at, modified_by, modified_at } = viewOf(row);
      yield* outbox.store({ type: 'tenant.updated', data: () => ({ tenant: { id, name, created_by, created_at, modified_by, modified_at } }), actor, traceId });
      return row;
    });
    this.settle(row);
    outbox.committed();
    return this.view();
  }

  /**
   * The unit making it a new tenant again (a deletion's): the default name and settings, created now; its id and owner
   * stay. Its caller hands the tenant it answers to `settle` once committed.
   */
  *resetting(): Unit<TenantRow> {
    yield* tx.run(q.reset, { id: this.id, name: DEFAULT_TENANT_NAME, created_at: nowIso() });
    yield* tx.notify(CHANNEL, this.id);
    return (yield* tx.get(q.get, [this.id]))!;
  }
}

function viewOf({ id, owner_id, name, settings, created_by, created_at, modified_by, modified_at }: TenantRow): Tenant {
  const tenant: Tenant = { id, owner_id, name, type: 'test', settings: settingsMap(JSON.parse(settings) as TenantSettings), created_by, created_at };
  if (modified_by !== null && modified_at !== null) Object.assign(tenant, { modified_by, modified_at });
  return tenant;
}
