import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationStore } from '../../electron/engine/access/application-store';
import { Authenticator } from '../../electron/engine/access/authenticator';
import { callKeys, runtimeKeys } from '../../electron/engine/access/runtime-keys';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { resolveConfig } from '../../electron/engine/engine-config';
import { EventOutbox, SYSTEM_CAUSE } from '../../electron/engine/events/event-outbox';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { RequestLog } from '../../electron/engine/history/request-log';
import { lazyCodeRuntime } from '../../electron/engine/proxies/code-transform';
import { preconfiguredCalls } from '../../electron/engine/proxies/proxy-calls';
import { ProxyStore } from '../../electron/engine/proxies/proxy-store';
import { createForwarder } from '../../electron/engine/proxy/forwarder';
import { createRequestChecks } from '../../electron/engine/proxy/proxy-check';
import { createProxyCore } from '../../electron/engine/proxy/proxy-core';
import { proxyRoutes } from '../../electron/engine/proxy/proxy-route';
import { ClientActivity } from '../../electron/engine/server/client-activity';
import { startHttpServer } from '../../electron/engine/server/http-server';
import { IdempotencyStore } from '../../electron/engine/server/idempotency';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { AnyUnitRunner } from '../../electron/engine/storage/unit';
import { TokenService } from '../../electron/engine/vault/token-service';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';
import { callApi } from '../support/test-engine';
import { startServer, type TestServer } from './support/loopback';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const both = bothDatabases('proxy_core');
const USE = ['token:create', 'token:read', 'token:use'];

/**
 * The proxy served as the engine serves it, over a runner: its vault, the applications whose keys call it, the
 * pre-configured proxies (without code: the code runtime is off) and the HTTP server in front; history in memory.
 */
async function proxyOver(units: AnyUnitRunner) {
  const config = resolveConfig({ port: 0, dataDir: null, log: () => undefined });
  const outbox = new EventOutbox(units, TENANT);
  const expressions = new ExpressionEngine();
  const tokens = new TokenService(new UnitTokenStore(units, sealer, outbox), sealer, expressions, TENANT);
  const applications = new ApplicationStore(units, sealer, TENANT, outbox);
  await applications.load();
  const { application, key } = await applications.create({ name: 'proxy user', type: 'private', permissions: USE, rules: [] }, null, { create: true }, null);
  const forwarder = createForwarder({ timeoutMs: 5000, denyPrivateDestinations: false, ownPorts: () => [] });
  const core = createProxyCore(config, tokens, expressions, forwarder, outbox);
  const proxies = new ProxyStore(units, sealer, outbox);
  await proxies.load();
  const openEncrypted = () => Promise.reject(new Error('no client encryption keys here'));
  const preconfigured = preconfiguredCalls({
    proxies,
    core,
    tokens,
    expressions,
    tenantId: TENANT,
    codeRuntime: lazyCodeRuntime(() => {
      throw new Error('no code runs here');
    }, 'The code runtime is off'),
    runtimeKey: runtimeKeys(applications, () => undefined),
    callKey: callKeys(applications, () => undefined),
    dependenciesDir: null,
    openEncrypted,
  });
  const history = await RequestLog.start({ dataDir: null, limit: 100, log: () => undefined });
  const http = await startHttpServer({
    config,
    routes: proxyRoutes(core, openEncrypted, preconfigured),
    authenticator: new Authenticator(applications),
    idempotency: new IdempotencyStore(units, sealer),
    requestLog: history,
    clients: new ClientActivity(),
  });
  const writer = { caller: systemCaller(TENANT, { id: application.id, name: application.name }), cause: null };
  const checks = createRequestChecks({ tokens, expressions, headerPrefix: 'BT', callerFor: () => undefined, routes: [] });
  const call = (body: unknown, headers: Record<string, string>) => callApi(http.url, 'POST', '/proxy/charges', { key: key!.key, body, headers });
  return {
    tokens,
    checks,
    writer,
    call: (body: unknown, destination: string) => call(body, { 'BT-PROXY-URL': destination }),
    /** A pre-configured proxy to `destination` that detokenizes, and a call of it by its key. */
    preconfigured: async (destination: string) => {
      const definition = { name: 'charges', destination_url: destination, request_transforms: [], response_transforms: [], application_id: null, configuration: {}, require_auth: true, disable_detokenization: false };
      const made = await proxies.create(definition, application.id, null, SYSTEM_CAUSE);
      return (body: unknown) => call(body, { 'BT-PROXY-KEY': made.key });
    },
    close: async (): Promise<void> => {
      await http.close();
      await history.close();
      await forwarder.close();
    },
  };
}

describePostgres('the ephemeral proxy on SQLite and PostgreSQL', () => {
  let destination: TestServer;
  /** What the destination received, body by body. */
  const received: string[] = [];
  beforeAll(async () => {
    destination = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
  });
  afterAll(() => destination.close());

  describe.each(SIDES)('over %s', (side) => {
    let proxy: Awaited<ReturnType<typeof proxyOver>>;
    beforeAll(async () => {
      proxy = await proxyOver(both.runners[side]);
    });
    afterAll(() => proxy.close());

    it('detokenizes a body with a cold token and then a hot one, and refuses the token once deleted', async () => {
      const { tokens, writer } = proxy;
      const made = await tokens.create({ type: 'token', data: { name: 'Ada', city: 'Paris' } }, writer);
      const body = { who: `{{ ${made.id} | json: '$.name' }}`, where: `{{ ${made.id} | json: '$.city' }}`, amount: 7 };
      // The first read of the token is cold (awaited over PostgreSQL), the second from the store's memory.
      for (const round of [1, 2]) {
        const res = await proxy.call(body, destination.url);
        expect(res.status, `round ${round}`).toBe(200);
        expect(res.headers['bt-proxy-destination-status']).toBe('200');
        expect(JSON.parse(received.at(-1)!)).toEqual({ who: 'Ada', where: 'Paris', amount: 7 });
      }

      await tokens.delete(made.id, writer);
      const sent = received.length;
      const refused = await proxy.call(body, destination.url);
      expect(refused.status).toBe(400);
      expect(refused.headers['bt-proxy-destination-status']).toBeUndefined();
      expect(JSON.stringify(refused.body)).toContain(made.id);
      expect(received).toHaveLength(sent);
    });

    it('detokenizes a cold token through a pre-configured proxy, and refuses it once deleted', async () => {
      const { tokens, writer } = proxy;
      const made = await tokens.create({ type: 'token', data: 'Grace' }, writer);
      const call = await proxy.preconfigured(destination.url);
      const res = await call({ who: `{{ ${made.id} }}` });
      expect(res.status).toBe(200);
      expect(JSON.parse(received.at(-1)!)).toEqual({ who: 'Grace' });
      await tokens.delete(made.id, writer);
      const refused = await call({ who: `{{ ${made.id} }}` });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(made.id);
    });

    it("checks a composed request's tokens: a live one passes, a deleted one is flagged where it is", async () => {
      const { tokens, writer, checks } = proxy;
      const live = await tokens.create({ type: 'token', data: 'live' }, writer);
      const gone = await tokens.create({ type: 'token', data: 'gone' }, writer);
      await tokens.delete(gone.id, writer);
      const body = `{"a":"{{ ${live.id} }}","b":"{{ ${gone.id} }}"}`;
      const checked = await checks.check({ application_id: null, target_id: null, method: 'POST', path: '/proxy', headers: [['BT-PROXY-URL', destination.url]], body });
      expect(checked.expressions.map((e) => e.token_id)).toEqual([live.id, gone.id]);
      const unknown = checked.flags.filter((flag) => flag.kind === 'unknown_token');
      expect(unknown).toHaveLength(1);
      expect(unknown[0].at).toEqual({ part: 'body', from: body.indexOf(`{{ ${gone.id}`), to: body.indexOf(`{{ ${gone.id}`) + `{{ ${gone.id} }}`.length });
      const preview = await checks.preview({ application_id: null, content_type: 'application/json', body, at: body.indexOf(live.id) });
      expect(preview).toMatchObject({ token: { id: live.id, type: 'token' }, problem: null });
    });
  });
});
