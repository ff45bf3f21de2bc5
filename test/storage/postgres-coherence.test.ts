import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApplicationStore } from '../../electron/engine/access/application-store';
import { Authenticator } from '../../electron/engine/access/authenticator';
import { SessionStore } from '../../electron/engine/access/session-store';
import { resolveConfig } from '../../electron/engine/engine-config';
import { Environments } from '../../electron/engine/environments/environments';
import { EventOutbox, WORKBENCH_CAUSE } from '../../electron/engine/events/event-outbox';
import { ProxyStore } from '../../electron/engine/proxies/proxy-store';
import { ReactorStore } from '../../electron/engine/reactors/reactor-store';
import { SecretStore } from '../../electron/engine/secrets/secret-store';
import type { ApiProblem } from '../../electron/engine/server/problem';
import { AdjustableSettings, PROXY_LIMITS } from '../../electron/engine/settings/adjustable-settings';
import { CollectionsFolder } from '../../electron/engine/settings/collections-folder';
import { ProxiesFolderSetting } from '../../electron/engine/settings/proxies-folder';
import { wipeUnit } from '../../electron/engine/settings/wipe-vault';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import type { AnyUnitRunner, UnitRunner } from '../../electron/engine/storage/unit';
import { TenantStore } from '../../electron/engine/tenant/tenant-store';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { TokenService } from '../../electron/engine/vault/token-service';
import { applyTokenWrites, type StoredToken, type TokenStore, UnitTokenStore } from '../../electron/engine/vault/token-store';
import type { WebhookDefinition } from '../../electron/engine/webhooks/webhook-model';
import { WebhookStore } from '../../electron/engine/webhooks/webhook-store';
import { describePostgres } from '../support/postgres-suite';
import { twoReplicas, type Replica } from '../support/replicas';
import { storedToken } from '../support/stored-token';

/**
 * Two replicas over one PostgreSQL database, each with its own instance of every store that holds rows in memory: a
 * change made through one is what the other answers within a second, and a change whose notice was lost (the notify
 * connection down) is read again once that connection comes back.
 */
const TENANT = 'tenant-1';
const WITHIN = { timeout: 1_000, interval: 20 };
const sealer = new Sealer(randomBytes(32));
const cause = { actor: { id: 'app-1', type: 'application' as const }, traceId: 'trace-1' };
const replicas = twoReplicas('coherence');

const outboxOf = (units: AnyUnitRunner) => new EventOutbox(units, TENANT);
async function loaded<T extends { load(): Promise<void> }>(store: T): Promise<T> {
  await store.load();
  return store;
}
const applicationsOf = (replica: Replica) => loaded(new ApplicationStore(replica.units, sealer, TENANT, outboxOf(replica.units)));
const backend = { name: 'Billing', type: 'private' as const, permissions: ['token:read'], rules: [] };
const proxyDefinition = (name: string) => ({
  name,
  destination_url: 'https://api.example.com/',
  request_transforms: [],
  response_transforms: [],
  application_id: null,
  configuration: { API_TOKEN: name },
  require_auth: true,
  disable_detokenization: false,
});
const reactorDefinition = { name: 'react', code: 'module.exports = async () => ({})', configuration: {}, application_id: null, runtime: null };
const webhookDefinition: WebhookDefinition = { name: 'audit', url: 'https://hooks.example.com/audit', notify_email: null, events: ['token.created'] };
/** b's authenticator's answer for a key: the key's id, or the status it refuses it with. */
function callerOf(authenticator: Authenticator, secret: string) {
  try {
    return authenticator.authenticate(secret, 'X-API-KEY').keyId;
  } catch (error) {
    return (error as ApiProblem).status;
  }
}
/** The token service's masked data is all these tests read of it; its type still asks for a store over SQLite's runner. */
const tokenServiceOver = (store: UnitTokenStore<PostgresUnits>) => new TokenService(store as unknown as TokenStore<UnitRunner>, sealer, new ExpressionEngine(), TENANT);
const writeToken = (store: UnitTokenStore, token: StoredToken) => store.runWrites([], () => applyTokenWrites(store.writing, [{ op: 'create', token, searchTerms: [] }]));

describePostgres('stores held in memory, across two replicas over PostgreSQL', () => {
  describe('applications and keys', () => {
    it("a key revoked on one replica is refused by the other's authenticator, a new key and an update reach it, a deleted application is gone", async () => {
      const [a, b] = [await applicationsOf(replicas.a), await applicationsOf(replicas.b)];
      const authenticator = new Authenticator(b);
      const { application, key } = await a.create(backend, null, { create: true }, WORKBENCH_CAUSE);
      await expect.poll(() => callerOf(authenticator, key!.key), WITHIN).toBe(key!.id);

      // Cached by b's authenticator since its first use: refused all the same once revoked on a.
      await a.deleteKey(application.id, key!.id, WORKBENCH_CAUSE);
      await expect.poll(() => callerOf(authenticator, key!.key), WITHIN).toBe(401);

      const second = await a.createKey(application.id, null, WORKBENCH_CAUSE);
      await a.update(application.id, { ...backend, name: 'Billing v2' }, null, WORKBENCH_CAUSE);
      await expect.poll(() => b.findByKey(second.key)?.application.name, WITHIN).toBe('Billing v2');

      await a.delete(application.id, WORKBENCH_CAUSE);
      await expect.poll(() => b.get(application.id), WITHIN).toBeUndefined();
      expect(b.findByKey(second.key)).toBeUndefined();
    });

    it("a change whose notice was lost while the other's notify connection was down is read once it comes back", async () => {
      const [a, b] = [await applicationsOf(replicas.a), await applicationsOf(replicas.b)];
      const { application, key } = await a.create(backend, null, { create: true }, WORKBENCH_CAUSE);
      await expect.poll(() => b.findByKey(key!.key)?.keyId, WITHIN).toBe(key!.id);
      // Revoked with no notice, as one sent while nobody of b listened: b cannot know until it reads again.
      await replicas.admin.query('DELETE FROM api_keys WHERE id = $1', [key!.id]);
      const marker = await a.create({ ...backend, name: 'Marker' }, null, { create: false }, null);
      await expect.poll(() => b.get(marker.application.id)?.name, WITHIN).toBe('Marker');
      expect(b.findByKey(key!.key)?.keyId).toBe(key!.id);

      await replicas.b.cutNotify();
      await expect.poll(() => b.findByKey(key!.key), { timeout: 5_000 }).toBeUndefined();
      expect(b.get(application.id)?.keys).toEqual([]);
    });
  });

  it('a session revoked on one replica is unknown to the other', async () => {
    const apps = await applicationsOf(replicas.a);
    const frontEnd = (await apps.create({ name: 'Front end', type: 'public', permissions: [], rules: [] }, null, { create: false }, null)).application.id;
    const [a, b] = await Promise.all([replicas.a, replicas.b].map((r) => loaded(new SessionStore(r.units, sealer, outboxOf(r.units)))));
    const session = await a.create(frontEnd, WORKBENCH_CAUSE);
    await expect.poll(() => b.findByKey(session.session_key)?.id, WITHIN).toBe(session.id);
    await a.revoke(session.id);
    await expect.poll(() => b.findByKey(session.session_key), WITHIN).toBeUndefined();
  });

  it("a webhook made on one replica wants events on the other, and once deleted is gone from the other's list", async () => {
    const outboxB = outboxOf(replicas.b.units);
    const [a, b] = [await loaded(new WebhookStore(replicas.a.units, outboxOf(replicas.a.units))), await loaded(new WebhookStore(replicas.b.units, outboxB))];
    const hook = await a.create(webhookDefinition, 'app-1');
    await expect.poll(() => b.wanting('token.created').map((w) => w.id), WITHIN).toEqual([hook.id]);
    expect(outboxB.wants('token.created')).toBe(true);
    await a.delete(hook.id);
    await expect.poll(() => b.list().map((w) => w.id), WITHIN).toEqual([]);
    expect(outboxB.wants('token.created')).toBe(false);
  });

  it("a proxy and a reactor deleted on one replica are gone from the other, and a proxy's new version reaches it", async () => {
    const proxyStore = (r: Replica) => loaded(new ProxyStore(r.units, sealer, outboxOf(r.units)));
    const [a, b] = [await proxyStore(replicas.a), await proxyStore(replicas.b)];
    const proxy = await a.create(proxyDefinition('first'), 'app-1', null, cause);
    await expect.poll(() => b.byInvocationKey(proxy.key)?.name, WITHIN).toBe('first');
    await a.replace(proxy.id, proxyDefinition('renamed'), 'app-1', null, cause);
    await expect.poll(() => b.byInvocationKey(proxy.key)?.configuration, WITHIN).toEqual({ API_TOKEN: 'renamed' });
    await a.delete(proxy.id, cause);
    await expect.poll(() => b.byInvocationKey(proxy.key), WITHIN).toBeUndefined();

    const reactorStore = (r: Replica) => loaded(new ReactorStore(r.units, sealer, outboxOf(r.units)));
    const [ra, rb] = [await reactorStore(replicas.a), await reactorStore(replicas.b)];
    const reactor = await ra.create(reactorDefinition, 'app-1', null, cause);
    await expect.poll(() => rb.list([reactor.id], undefined).length, WITHIN).toBe(1);
    await ra.delete(reactor.id, cause);
    await expect.poll(() => rb.list([reactor.id], undefined).length, WITHIN).toBe(0);
  });

  it("the tenant's settings changed on one replica are the rules the other applies", async () => {
    const [a, b] = await Promise.all([replicas.a, replicas.b].map((r) => loaded(new TenantStore(r.units, TENANT, outboxOf(r.units)))));
    expect(b.rules.deduplicate).toBe(false);
    await a.update({ name: 'Renamed', settings: { deduplicate_tokens: 'true' } }, { actor: cause.actor, traceId: null });
    await expect.poll(() => b.rules.deduplicate, WITHIN).toBe(true);
    expect(b.view().name).toBe('Renamed');
  });

  it("a setting changed on one replica reaches the other's config and its apply callback; so do the folders chosen", async () => {
    const applied: number[] = [];
    const config = resolveConfig();
    const a = await loaded(new AdjustableSettings(replicas.a.units, 'adjustable_limits', PROXY_LIMITS, resolveConfig(), {}));
    await loaded(new AdjustableSettings(replicas.b.units, 'adjustable_limits', PROXY_LIMITS, config, {}, (now) => applied.push(now.maxExpressions)));
    await a.change({ maxExpressions: 7 });
    await expect.poll(() => applied, WITHIN).toEqual([7]);
    expect(config.maxExpressions).toBe(7);

    const folder = mkdtempSync(join(tmpdir(), 'tokenbench-coherence-'));
    const collections = (r: Replica) =>
      loaded(new CollectionsFolder(r.units, { pinned: null, operatorFixed: null, default: join(folder, 'default'), dataDir: null, log: () => undefined }));
    const [ca, cb] = [await collections(replicas.a), await collections(replicas.b)];
    await ca.change(join(folder, 'saved'));
    await expect.poll(() => cb.state('x').stored, WITHIN).toBe(join(folder, 'saved'));

    const [pa, pb] = [await loaded(new ProxiesFolderSetting(replicas.a.units, null)), await loaded(new ProxiesFolderSetting(replicas.b.units, null))];
    await pa.change(join(folder, 'proxies'));
    await expect.poll(() => pb.state().stored, WITHIN).toBe(join(folder, 'proxies'));
  });
  it('a secret set, replaced or deleted on one replica is what the other sends with, also after a lost notice', async () => {
    const [a, b] = await Promise.all([replicas.a, replicas.b].map((r) => loaded(new SecretStore(r.units, sealer))));
    await a.set('API_TOKEN', 'first');
    await expect.poll(() => b.value('API_TOKEN'), WITHIN).toBe('first');
    await a.set('API_TOKEN', 'second');
    await expect.poll(() => b.value('API_TOKEN'), WITHIN).toBe('second');
    await a.delete('API_TOKEN');
    await expect.poll(() => b.has('API_TOKEN'), WITHIN).toBe(false);

    await a.set('KEPT', 'kept');
    await expect.poll(() => b.has('KEPT'), WITHIN).toBe(true);
    // Deleted with no notice: b forgets it only when it reads everything again, after its notify connection's return.
    await replicas.admin.query("DELETE FROM secrets WHERE name = 'KEPT'");
    await replicas.b.cutNotify();
    await expect.poll(() => b.list().map((s) => s.name), { timeout: 5_000 }).toEqual([]);
  });

  it("the environment chosen on one replica is the one the other's requests are sent with", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tokenbench-coherence-env-'));
    const [a, b] = await Promise.all([replicas.a, replicas.b].map((r) => loaded(new Environments(r.units, () => folder))));
    for (const name of ['dev', 'prod']) a.store.write(name, [{ name: 'host', value: `${name}.example`, secret: null }], false);
    await a.choose('dev');
    await expect.poll(() => b.active(), WITHIN).toBe('dev');
    await a.choose('prod');
    await expect.poll(() => b.variables().variables.get('host')?.value, WITHIN).toBe('prod.example');
    await a.choose(null);
    await expect.poll(() => b.active(), WITHIN).toBeNull();
  });
  it("a token's mask changed while the other's notices were lost: once its notify connection is back, it shows the new masked data", async () => {
    const store = (r: Replica) => new UnitTokenStore(r.units, sealer, outboxOf(r.units));
    const [a, b] = [store(replicas.a), store(replicas.b)];
    const service = tokenServiceOver(b);
    const token = storedToken('masked-1', { data: 'Jane1234', mask: '{{ data | reveal_last: 4 }}' });
    await writeToken(a, token);
    const maskedOnB = async () => service.storedMaskedData((await b.getMany([token.id]))[0]!);
    expect(await maskedOnB()).toBe('XXXX1234');
    // Changed with no notice, as one sent while nobody of b listened.
    await replicas.admin.query('UPDATE tokens SET mask = $1 WHERE id = $2', [JSON.stringify('{{ data | reveal_last: 2 }}'), token.id]);
    await replicas.b.cutNotify();
    await expect.poll(maskedOnB, { timeout: 5_000 }).toBe('XXXXXX34');
  });
});

describePostgres('a wipe on one replica, as the other sees it', () => {
  const wiping = twoReplicas('wipe_coherence');

  /** A replica's stores, each loaded as at its start. */
  async function storesOf({ units }: Replica) {
    const outbox = outboxOf(units);
    const tokenStore = new UnitTokenStore(units, sealer, outbox);
    return {
      applications: await loaded(new ApplicationStore(units, sealer, TENANT, outbox)),
      sessions: await loaded(new SessionStore(units, sealer, outbox)),
      proxies: await loaded(new ProxyStore(units, sealer, outbox)),
      reactors: await loaded(new ReactorStore(units, sealer, outbox)),
      webhooks: await loaded(new WebhookStore(units, outbox)),
      tokenStore,
      tokens: tokenServiceOver(tokenStore),
    };
  }

  it("empties the other's keys, sessions, proxies, reactors and webhooks, and the tokens it held", async () => {
    const [a, b] = [await storesOf(wiping.a), await storesOf(wiping.b)];
    const authenticator = new Authenticator(b.applications);
    const frontEnd = { name: 'Front end', type: 'public' as const, permissions: ['token:read'], rules: [] };
    const { application, key } = await a.applications.create(frontEnd, null, { create: true }, WORKBENCH_CAUSE);
    const session = await a.sessions.create(application.id, WORKBENCH_CAUSE);
    const proxy = await a.proxies.create(proxyDefinition('billing'), 'app-1', null, cause);
    const reactor = await a.reactors.create(reactorDefinition, 'app-1', null, cause);
    const hook = await a.webhooks.create(webhookDefinition, 'app-1');
    await writeToken(a.tokenStore, storedToken('t-1', { data: 'first1111', mask: '{{ data | reveal_last: 4 }}' }));

    // b has used all of it: the key and the session resolved, the token decrypted and its masked data rendered.
    await expect.poll(() => callerOf(authenticator, key!.key), WITHIN).toBe(key!.id);
    await expect.poll(() => b.sessions.findByKey(session.session_key)?.id, WITHIN).toBe(session.id);
    await expect.poll(() => b.proxies.byInvocationKey(proxy.key)?.id, WITHIN).toBe(proxy.id);
    await expect.poll(() => b.reactors.list([reactor.id], undefined).length, WITHIN).toBe(1);
    await expect.poll(() => b.webhooks.list().map((w) => w.id), WITHIN).toEqual([hook.id]);
    const [held] = await b.tokenStore.getMany(['t-1']);
    expect(b.tokens.storedMaskedData(held!)).toBe('XXXXX1111');

    await wiping.a.units.run(() => wipeUnit(sealer));

    await expect.poll(() => callerOf(authenticator, key!.key), WITHIN).toBe(401);
    await expect.poll(() => b.sessions.findByKey(session.session_key), WITHIN).toBeUndefined();
    await expect.poll(() => b.proxies.byInvocationKey(proxy.key), WITHIN).toBeUndefined();
    await expect.poll(() => b.reactors.list([reactor.id], undefined).length, WITHIN).toBe(0);
    await expect.poll(() => b.webhooks.list(), WITHIN).toEqual([]);
    await expect.poll(async () => (await b.tokenStore.getMany(['t-1']))[0], WITHIN).toBeUndefined();
  });
});
