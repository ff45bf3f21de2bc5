import { afterEach, describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { TenantStore } from '../../electron/engine/tenant/tenant-store';

/** A tenant update raises `tenant.updated` (vendor-surfaces.md §5.5) in its own transaction, with the vendor's `tenant` member. */
let db: Db;
afterEach(() => db?.close());

async function tenantWithOutbox() {
  db = openDatabase({ dataDir: null });
  const outbox = new EventOutbox(unitsOf(db), 'tenant-1');
  outbox.subscribe(['tenant.updated']);
  const tenant = new TenantStore(unitsOf(db), 'tenant-1', outbox);
  await tenant.load();
  return { tenant, outbox };
}

const SETTINGS = { name: 'Renamed', settings: { deduplicate_tokens: 'true' } };
const APP = { id: 'app-1', name: 'ops', type: 'application' as const };

describe('tenant.updated', () => {
  it('is stored with the update: the tenant’s id, name and times, the actor and the trace id, never its settings', async () => {
    const { tenant, outbox } = await tenantWithOutbox();
    const updated = await tenant.update(SETTINGS, { actor: APP, traceId: 'trace-1' });
    const [{ event }] = await outbox.pending(10);
    expect(event).toMatchObject({ type: 'tenant.updated', tenant_id: 'tenant-1', trace_id: 'trace-1' });
    expect(event.data).toEqual({
      tenant: { id: 'tenant-1', name: 'Renamed', created_by: updated.created_by, created_at: updated.created_at, modified_by: 'app-1', modified_at: updated.modified_at },
      actor: APP,
    });
  });

  it('names the workbench’s user, the tenant’s owner, for a change made in Settings', async () => {
    const { tenant, outbox } = await tenantWithOutbox();
    await tenant.update(SETTINGS, { actor: tenant.owner, traceId: null });
    expect((await outbox.pending(10))[0].event.data.actor).toEqual({ id: tenant.view().owner_id, type: 'user' });
  });

  it('and the change commit or roll back together: an event that cannot be stored leaves the tenant and its rules as they were', async () => {
    const { tenant, outbox } = await tenantWithOutbox();
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON event_outbox BEGIN SELECT RAISE(ABORT, 'disk full'); END");
    await expect(tenant.update(SETTINGS, { actor: APP, traceId: null })).rejects.toThrow('disk full');
    expect(await outbox.pending(10)).toEqual([]);
    expect(tenant.rules.deduplicate).toBe(false);
    expect(tenant.view().name).toBe('Tokenbench');
  });
});
