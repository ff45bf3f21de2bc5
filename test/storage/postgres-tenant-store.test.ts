import { beforeAll, describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { TenantStore } from '../../electron/engine/tenant/tenant-store';
import { bothDatabases, SIDES, storedEventTypes } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const TENANT = 'tenant-1';
const APP = { id: 'app-1', name: 'ops', type: 'application' as const };

const both = bothDatabases('tenant_store');

describePostgres('the tenant store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    let outbox: EventOutbox;
    beforeAll(() => {
      outbox = new EventOutbox(both.runners[side], TENANT);
      outbox.subscribe(['tenant.updated']);
    });
    /** The tenant as a start reads it (making it on the first). */
    const started = async () => {
      const tenant = new TenantStore(both.runners[side], TENANT, outbox);
      await tenant.load();
      return tenant;
    };
    const events = () => storedEventTypes(both.runners[side]);

    it('makes the tenant once, updates it with its event, and a reset made in a unit that rolls back leaves it as it was', async () => {
      const tenant = await started();
      const made = tenant.view();
      expect(made).toMatchObject({ id: TENANT, name: 'Tokenbench', type: 'test' });
      expect((await started()).view()).toEqual(made);

      const updated = await tenant.update({ name: 'Renamed', settings: { deduplicate_tokens: 'true' } }, { actor: APP, traceId: 'trace-1' });
      expect(updated).toMatchObject({ name: 'Renamed', owner_id: made.owner_id, modified_by: 'app-1' });
      expect(tenant.rules.deduplicate).toBe(true);
      const again = await started();
      expect(again.view()).toEqual(updated);
      expect(again.rules.deduplicate).toBe(true);
      expect(await events()).toEqual(['tenant.updated']);

      // SQLite's runner throws at once, PostgreSQL's rejects: both as a rejection here.
      const failing = async () =>
        both.runners[side].run(function* () {
          yield* tenant.resetting();
          throw new Error('the refill failed');
        });
      await expect(failing()).rejects.toThrow('the refill failed');
      expect((await started()).view()).toEqual(updated);

      tenant.settle(await both.runners[side].run(() => tenant.resetting()));
      expect(tenant.view()).toMatchObject({ name: 'Tokenbench', owner_id: made.owner_id, settings: made.settings });
      expect(tenant.view().modified_at).toBeUndefined();
      expect(tenant.rules.deduplicate).toBe(false);
      expect((await started()).view()).toEqual(tenant.view());
    });
  });
});
