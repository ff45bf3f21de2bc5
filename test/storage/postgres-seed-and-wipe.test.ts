import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { ApplicationStore } from '../../electron/engine/access/application-store';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { ProxyStore } from '../../electron/engine/proxies/proxy-store';
import { ReactorStore } from '../../electron/engine/reactors/reactor-store';
import { applySeed, seedingEmptied } from '../../electron/engine/seed/apply-seed';
import { seedFile } from '../../electron/engine/seed/seed-file';
import { wipeVault } from '../../electron/engine/settings/wipe-vault';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { AnyUnitRunner } from '../../electron/engine/storage/unit';
import { usageReport } from '../../electron/engine/tenant/tenant-routes';
import { TenantStore, type TenantRow } from '../../electron/engine/tenant/tenant-store';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { UnitTransactionStore } from '../../electron/engine/transactions/transaction-store';
import { ActiveTokens } from '../../electron/engine/vault/active-tokens';
import { TokenCount } from '../../electron/engine/vault/token-count';
import { TokenService } from '../../electron/engine/vault/token-service';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import { WebhookStore } from '../../electron/engine/webhooks/webhook-store';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const both = bothDatabases('seed_and_wipe');

const seed = seedFile.parse({
  applications: [{ name: 'Seeded backend', type: 'private', permissions: ['token:create', 'token:read'], key: 'the-seeded-backends-key-of-many-chars' }],
  tokens: [
    { id: 'seed-card', type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2040 } },
    { id: 'seed-text', type: 'token', data: 'hello' },
  ],
});

/** The engine's stores over one runner, loaded as at its start, with the callers this suite drives. */
async function engineOver(units: AnyUnitRunner) {
  const outbox = new EventOutbox(units, TENANT);
  const tokenStore = new UnitTokenStore(units, sealer, outbox);
  const tokens = new TokenService(tokenStore, sealer, new ExpressionEngine(), TENANT);
  const applications = new ApplicationStore(units, sealer, TENANT, outbox);
  const tenant = new TenantStore(units, TENANT, outbox);
  const proxies = new ProxyStore(units, sealer, outbox);
  const reactors = new ReactorStore(units, sealer, outbox);
  const webhooks = new WebhookStore(units, outbox);
  for (const store of [applications, tenant, proxies, reactors, webhooks]) await store.load();
  const transactions = new TransactionManager(new UnitTransactionStore(units, sealer), tokenStore, 60);
  const active = new ActiveTokens(units, tokenStore);
  const count = new TokenCount(tokenStore);
  await count.start();
  const wipe = (refill?: Parameters<typeof wipeVault>[1]) => wipeVault({ tokens: tokenStore, transactions, applications, proxies, reactors, webhooks }, refill);
  return { tokenStore, tokens, applications, tenant, transactions, active, count, wipe };
}

describePostgres('a seed, the usage report and a wipe on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    it('applies a seed once (again: nothing changes), counts it in the usage report and the status, and a wipe empties the vault', async () => {
      const engine = await engineOver(both.runners[side]);
      const first = await applySeed(seed, engine.applications, engine.tokens);
      expect(first).toEqual({ created: ['application "Seeded backend"', 'token seed-card', 'token seed-text'], unchanged: [], conflicts: [] });
      expect(engine.applications.findByName('Seeded backend')).toHaveLength(1);
      expect((await engine.tokenStore.get('seed-text'))?.data).toBe('hello');
      const again = await applySeed(seed, engine.applications, engine.tokens);
      expect(again).toEqual({ created: [], unchanged: ['application "Seeded backend"', 'token seed-card', 'token seed-text'], conflicts: [] });

      const report = await usageReport(engine.tokenStore, engine.active);
      expect(report.total_tokens).toBe(2);
      expect(Object.fromEntries(Object.entries(report.token_report.metrics_by_type).map(([type, { count }]) => [type, count]))).toEqual({ card: 1, token: 1 });
      // The status reads its count at once, on either database.
      await vi.waitFor(() => expect(engine.count.current()).toBe(2), { timeout: 3_000 });

      const open = await engine.transactions.create(systemCaller(TENANT));
      const wiped = await engine.wipe();
      expect(wiped).toMatchObject({ tokens: 2, transactions: 1, applications: 1 });
      expect(wiped.keys).not.toBeNull();
      expect(await engine.tokenStore.get('seed-text')).toBeUndefined();
      expect(await engine.transactions.store.get(open.id)).toBeUndefined();
      expect((await usageReport(engine.tokenStore, engine.active)).total_tokens).toBe(0);
      expect(engine.applications.findByName('Seeded backend')).toHaveLength(0);
      await vi.waitFor(() => expect(engine.count.current()).toBe(0), { timeout: 3_000 });
    });

    it("deletes the tenant in the wipe's one unit: reset, its active tokens forgotten and the seed applied again", async () => {
      const engine = await engineOver(both.runners[side]);
      await engine.tenant.update({ name: 'Renamed', settings: {} }, { actor: engine.tenant.owner, traceId: null });
      engine.active.mark('before-delete');
      await engine.active.flush();
      let reset: TenantRow | undefined;
      await engine.wipe(function* () {
        reset = yield* engine.tenant.resetting();
        yield* engine.active.clearing();
        yield* seedingEmptied(seed, engine.applications, engine.tokens);
      });
      expect(reset?.name).not.toBe('Renamed');
      expect(await engine.active.count()).toBe(0);
      expect((await engine.tokenStore.get('seed-text'))?.data).toBe('hello');
      expect(engine.applications.findByName('Seeded backend')).toHaveLength(1);
      expect((await usageReport(engine.tokenStore, engine.active)).total_tokens).toBe(2);
    });
  });
});
