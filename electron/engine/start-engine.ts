import { EventOutbox } from './events/event-outbox';
import { mkdtempSync, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CollectionStore } from './collections/collection-store';
import { Environments } from './environments/environments';
import { resolveReferences } from './environments/resolve-references';
import { ApplicationStore } from './access/application-store';
import { bootstrap, type BootstrapKeys } from './access/first-start';
import { applicationRoutes } from './access/application-routes';
import { Authenticator } from './access/authenticator';
import { callKeys, runtimeKeys } from './access/runtime-keys';
import { startEchoServer, type EchoServer } from './echo/echo-server';
import { resolveConfig, type EngineConfig } from './engine-config';
import { ExpressionEngine } from './expressions';
import { RequestLog } from './history/request-log';
import { applySeed, seedingEmptied } from './seed/apply-seed';
import type { SeedFile, SeedReport } from './seed/seed-file';
import { startHttpServer, type RunningHttpServer } from './server/http-server';
import { isLoopbackHost } from './server/local-url';
import { ClientActivity } from './server/client-activity';
import { IdempotencyStore } from './server/idempotency';
import { createForwarder } from './proxy/forwarder';
import { revealedOutbound } from './proxy/proxy-history';
import type { OpenEncryptedHeader } from './proxy/encrypted-root';
import { createRequestChecks } from './proxy/proxy-check';
import { createProxyCore } from './proxy/proxy-core';
import { proxyRoutes } from './proxy/proxy-route';
import { createCodeRuntime } from './code-runtime';
import { lazyCodeRuntime } from './proxies/code-transform';
import { preconfiguredCalls } from './proxies/proxy-calls';
import { proxiesRoutes, type ProxyRouteDeps } from './proxies/proxy-routes';
import { ProxyStore } from './proxies/proxy-store';
import { ReactorExport } from './reactors/reactor-export';
import { reactorFolderKind } from './reactors/reactor-file';
import { REACT_ROUTE, reactorCalls } from './reactors/reactor-calls';
import { ReactorResults, replicaRunsLostAfterMs } from './reactors/reactor-results';
import { reactorRoutes } from './reactors/reactor-routes';
import { ReactorStore } from './reactors/reactor-store';
import { FileIdentities } from './proxies/files/file-identities';
import { Housekeeping } from './housekeeping/housekeeping';
import { ProxyFiles } from './proxies/files/proxy-files';
import { proxyFolderKind } from './proxies/files/proxy-file';
import { ProxyFolder } from './proxies/files/proxy-folder';
import { ProxiesFolderSetting } from './settings/proxies-folder';
import { SecretStore } from './secrets/secret-store';
import { actingPerson } from './people/acting-person';
import { CredentialStore } from './people/credential-store';
import { SESSION_SECRET_RULE, sessionFromSecret } from './people/session-secret';
import { TransactionManager } from './transactions/transaction-manager';
import { TransactionPanel } from './transactions/transaction-panel';
import { transactionRoutes } from './transactions/transaction-routes';
import { UnitTransactionStore } from './transactions/transaction-store';
import { TransactionWriter } from './transactions/transaction-writer';
import { openEngineStorage, type EngineStorage } from './engine-storage';
import { TokenQueries } from './vault/token-queries';
import { tokenRoutes } from './vault/token-routes';
import { TokenService } from './vault/token-service';
import { TokenSuggestions } from './vault/token-suggestions';
import { type TokenWrite, UnitTokenStore } from './vault/token-store';
import { TokenCount } from './vault/token-count';
import { afterRun, type AnyUnitRunner, type Unit } from './storage/unit';
import { intentRoutes } from './token-intents/intent-routes';
import { IntentStore, settleHolds } from './token-intents/intent-store';
import { TokenIntents } from './token-intents/token-intents';
import { actionRecorder, createBrowserWorkbench, createWorkbenchModel, frontDoor, proxySettings, reactorSettings, RemoteTargets, callKeyApplicationSet, runtimeKeyMade, Welcome, webhookSettings, type BrowserWorkbenchOptions } from './workbench';
import type { EngineStatus } from '../../shared/workbench/live-contract';
import type { WorkbenchModel } from '../../shared/workbench/methods';
import { engineEvents, type EngineEvents } from './engine-events';
import { AdjustableSettings, HISTORY_ANSWERS, HISTORY_RETENTION, LOG_RETENTION, PROXY_LIMITS, TOKEN_INTENT_TTL } from './settings/adjustable-settings';
import { logRoutes } from './logs/log-routes';
import { catalogueRoutes } from './access/catalogue-routes';
import { enrichmentRoutes } from './vault/enrichment-routes';
import { CollectionsFolder } from './settings/collections-folder';
import { wipeVault } from './settings/wipe-vault';
import { ClientKeyStore } from './encryption-keys/client-key-store';
import { encryptedRequests } from './encryption-keys/encrypted-requests';
import { openEncryptedHeader } from './encryption-keys/encrypted-header';
import { clientKeyRoutes } from './encryption-keys/key-routes';
import { sessionRoutes } from './access/session-routes';
import { SessionStore } from './access/session-store';
import { TENANT_DELETE } from './settings/adjustable-settings';
import { tenantRoutes, usageReport } from './tenant/tenant-routes';
import { TenantStore, type TenantRow } from './tenant/tenant-store';
import { ActiveTokens } from './vault/active-tokens';
import { webhookRoutes } from './webhooks/webhook-routes';
import { createWebhooks } from './webhooks/webhooks';

export type { BootstrapKeys } from './access/first-start';

export interface Engine {
  readonly url: string;
  readonly port: number;
  readonly echoUrl: string | null;
  readonly config: EngineConfig;
  /** The one event road: history entries and transaction changes. */
  readonly events: EngineEvents;
  /** Set when this start created the first applications. */
  readonly bootstrapKeys: BootstrapKeys | null;
  readonly seedReport: SeedReport | null;
  readonly history: RequestLog;
  /** The events this engine raised for its webhooks (the webhooks set what it keeps; tests may too). */
  readonly outbox: EventOutbox;
  /** Where saved requests are kept now (Settings may change it while the engine runs). */
  readonly collectionsFolder: string;
  /** Every kept transaction as the workbench shows it. */
  readonly transactions: TransactionPanel;
  /** The workbench's methods over this engine: what Electron's IPC and the browser workbench's routes both serve. */
  readonly workbench: WorkbenchModel;
  /**
   * Set when started with `workbench`: the browser GUI's address (with this run's session), the session, and new
   * launch links (a one-time code in place of the session, for a browser's command line).
   */
  readonly browserWorkbench: { url: string; session: string; sessionInAddress: boolean; launchUrl(): string } | null;
  /** The named workbench credentials (Settings and `tokenbench credentials` manage them). */
  readonly credentials: CredentialStore;
  status(): EngineStatus;
  stop(): Promise<void>;
}

export interface StartOptions extends Partial<EngineConfig> {
  seed?: SeedFile;
  /** Serve the built GUI at /ui/ and its session-guarded methods at /_workbench/. */
  browserWorkbench?: BrowserWorkbenchOptions;
  /**
   * Hold a new vault's first keys for the workbench's welcome view (the default). false: whoever started the engine
   * hands them over from `bootstrapKeys` itself, so the workbench never shows them (a wipe's new keys it still does).
   */
  welcome?: boolean;
  /** Where the proxies folder's lines go (a file loaded, broken, removed); default: the config's log. */
  proxyFilesReport?: (line: string) => void;
  /**
   * The browser workbench owner's session secret (TOKENBENCH_SESSION_SECRET: base64 or base64url of at least 32
   * bytes), so that it survives a restart; default: a random one per run.
   */
  sessionSecret?: string;
  /** The vault's master key (32 bytes) from the caller; default: the data folder's key file, made on a first start. */
  masterKey?: Buffer;
  /**
   * A source run's build of the same sources (out/main): its worker threads load the built worker scripts from there
   * instead of compiling their TypeScript at each start. A built engine finds its own and needs none.
   */
  builtWorkers?: string;
}

/** What the refused code runtime answers: it would run anyone's code with a management key as the server's user. */
const CODE_OFF = 'The code runtime is off: this Tokenbench listens beyond loopback, where code transforms and reactors run only when serve is started with --allow-code';

/** The flag that fixes the private-destination policy, as Settings names it: given, or implied beyond loopback. */
function privateDestinationsFlag(given: Partial<EngineConfig>, operatorFixed: string | null): string {
  if (given.denyPrivateDestinations === false) return '--allow-private-destinations';
  if (given.denyPrivateDestinations === undefined && operatorFixed !== null) return operatorFixed;
  return PROXY_LIMITS.denyPrivateDestinations;
}

/**
 * Where saved requests live unless Settings chose a folder: beside the vault, else (a vault in memory) a fresh
 * temporary folder, which the engine removes at its stop unless something was saved in it.
 */
function defaultCollectionsFolder(config: EngineConfig): { folder: string; temporary: boolean } {
  if (config.dataDir !== null) return { folder: join(config.dataDir, 'collections'), temporary: false };
  if (config.collectionsDir !== null) return { folder: config.collectionsDir, temporary: false };
  return { folder: mkdtempSync(join(tmpdir(), 'tokenbench-collections-')), temporary: true };
}

/** The data folder's SQLite file, or the PostgreSQL database replicas share (`serve --database`), whose key is given. */
function openStorage(config: EngineConfig, masterKey: Buffer | undefined): Promise<EngineStorage> {
  if (config.databaseUrl === null) return openEngineStorage({ dataDir: config.dataDir, nativeBinding: config.nativeBinding, masterKey });
  if (masterKey === undefined) throw new Error('A PostgreSQL database needs the master key: start with TOKENBENCH_MASTER_KEY or --master-key-file');
  return openEngineStorage({ url: config.databaseUrl, masterKey, onError: (error) => config.log(`PostgreSQL: ${error instanceof Error ? error.message : String(error)}`) });
}

/** Starts the engine: vault, access, HTTP service and echo destination. Never imports electron. */
export async function startEngine(options: StartOptions = {}): Promise<Engine> {
  const { seed, browserWorkbench: browserOptions, welcome: holdWelcome = true, proxyFilesReport, masterKey, sessionSecret, builtWorkers, ...partial } = options;
  const config = resolveConfig(partial);
  const ownerSession = sessionSecret === undefined ? undefined : sessionFromSecret(sessionSecret);
  if (ownerSession === null) throw new Error(`The session secret must be ${SESSION_SECRET_RULE}`);
  const identity = config.identityHeader === null ? undefined : { header: config.identityHeader, trustedProxies: config.trustedProxies };
  // Beyond loopback, other machines reach the engine: the operator's flags, not a page, decide what it may do.
  const operatorFixed = isLoopbackHost(config.host) ? null : `--host ${config.host}`;
  // Reads the UI build first: a missing build fails before anything is opened.
  const browserWorkbench = browserOptions ? createBrowserWorkbench({ ...browserOptions, ownerSession, identity }) : null;
  /** Every transactional unit of this engine runs on `units`, over the database's one connection. */
  const { db, units, sealer, tenantId, historyDatabase, leader, starting, close: closeStorage } = await openStorage(config, masterKey);
  // Before anything reads them: the values Settings saved replace the defaults, and a flag given now beats both.
  const limits = new AdjustableSettings(units, 'adjustable_limits', { ...PROXY_LIMITS, denyPrivateDestinations: privateDestinationsFlag(partial, operatorFixed) }, config, {
    ...partial,
    denyPrivateDestinations: partial.denyPrivateDestinations ?? (operatorFixed === null ? undefined : true),
  }, (now) => {
    expressions.setExpressionLimit(now.maxExpressions);
    forwarder.configure({ timeoutMs: now.proxyTimeoutMs, denyPrivateDestinations: now.denyPrivateDestinations });
    webhooks.policyChanged(now.denyPrivateDestinations);
  });
  const retention = new AdjustableSettings(units, 'history_retention', HISTORY_RETENTION, config, partial, (now) =>
    history.retain({ limit: now.historyLimit, maxAgeDays: now.historyMaxAgeDays }),
  );
  // The proxy reads both from the config at each request: nothing else holds a copy.
  const answers = new AdjustableSettings(units, 'history_answers', HISTORY_ANSWERS, config, partial);
  const intentTtl = new AdjustableSettings(units, 'token_intent_ttl', TOKEN_INTENT_TTL, config, partial);
  const logRetention = new AdjustableSettings(units, 'log_retention', LOG_RETENTION, config, partial, (now) => history.retainLogs(now.logRetentionHours));
  const outbox = new EventOutbox(units, tenantId);
  const tenantDelete = new AdjustableSettings(units, 'tenant_delete', TENANT_DELETE, config, partial);
  for (const settings of [limits, retention, answers, intentTtl, logRetention, tenantDelete]) await settings.load();
  const tenant = new TenantStore(units, tenantId, outbox);
  await tenant.load();
  let apiPort = config.port;
  let echo: EchoServer | null = null;
  const echoPorts = () => (echo ? [echo.port] : []);
  const clients = new ClientActivity();
  const webhooks = await createWebhooks({ units, sealer, outbox, tenantId, config, ownPorts: () => [apiPort], echoPorts, clients });

  const applications = new ApplicationStore(units, sealer, tenantId, outbox);
  const expressions = new ExpressionEngine({ maxExpressions: config.maxExpressions });
  const tokenStore = new UnitTokenStore(units, sealer, outbox);
  const tokens = new TokenService(tokenStore, sealer, expressions, tenantId);
  const activeTokens = new ActiveTokens(units, tokenStore);
  tokens.useDefaults(() => tenant.rules);
  tokens.useActivity(activeTokens);
  const usage = () => usageReport(tokenStore, activeTokens);
  const tokenCount = new TokenCount(tokenStore);
  const queries = new TokenQueries(tokenStore, tokens, db === null ? 'postgres' : 'sqlite');
  const idempotency = new IdempotencyStore(units, sealer);
  const transactionStore = new UnitTransactionStore(units, sealer);
  const transactions = new TransactionManager(transactionStore, tokenStore, config.transactionTtlSeconds);
  const transactionPanel = new TransactionPanel(transactionStore, tokens);
  const proxies = new ProxyStore(units, sealer, outbox);
  await proxies.load();
  const reactors = new ReactorStore(units, sealer, outbox);
  await reactors.load();
  // Over PostgreSQL another replica may be running what is pending (db is SQLite's database, null over PostgreSQL).
  const reactorResults = new ReactorResults(units, sealer, Date.now, db === null ? replicaRunsLostAfterMs(config.reactorAsyncLimitMs) : null);
  await reactorResults.load();
  const intentStore = new IntentStore(units, sealer);
  const intents = new TokenIntents(intentStore, tokens, tenantId, () => config.tokenIntentTtlSeconds, outbox);
  tokens.useIntents(intents);
  // A commit consumes the intents its conversions held; a rollback or an expiry gives them back, in its own unit.
  transactions.useEndings(settleHolds);
  const clientKeys = new ClientKeyStore(units, sealer);
  const sessions = new SessionStore(units, sealer, outbox);
  const credentials = new CredentialStore(units);
  const openEncrypted: OpenEncryptedHeader = (value, header, opened) => openEncryptedHeader(clientKeys, value, header, opened);
  const encrypted = encryptedRequests(clientKeys);

  let seedReport: SeedReport | null;
  let bootstrapKeys: Awaited<ReturnType<typeof bootstrap>>;
  try {
    // Loaded inside: a replica that waited for another's start reads the applications that one seeded or made.
    [seedReport, bootstrapKeys] = await starting(async () => {
      await applications.load();
      await sessions.load();
      const report = seed ? await applySeed<AnyUnitRunner>(seed, applications, tokens) : null;
      return [report, await bootstrap(applications)] as const;
    });
  } catch (error) {
    await closeStorage();
    throw error;
  }
  // After seeding: the seed runs before any client could hold a lock (a commit re-checks the ids it creates).
  tokens.useWriter(new TransactionWriter(transactions, tokenStore, `${config.headerPrefix}-TRANSACTION-ID`));

  // Its own file and thread: history writes stay off the main thread and out of the vault's write lock.
  const history = await RequestLog.start({
    ...historyDatabase,
    dataDir: config.dataDir,
    limit: config.historyLimit,
    maxAgeDays: config.historyMaxAgeDays,
    logRetentionHours: config.logRetentionHours,
    nativeBinding: config.nativeBinding,
    log: config.log,
    builtWorkers,
  }).catch(async (error) => {
    await closeStorage();
    throw error;
  });
  const defaultFolder = defaultCollectionsFolder(config);
  const collectionsFolder = new CollectionsFolder(units, { pinned: config.collectionsDir, operatorFixed, default: defaultFolder.folder, dataDir: config.dataDir, log: config.log });
  await collectionsFolder.load();
  const collections = new CollectionStore(collectionsFolder.initial());
  const environments = new Environments(units, () => collections.folder);
  await environments.load();
  await tokenCount.start();
  const events = engineEvents(history, transactions, transactionPanel, tokenStore, collections, units.changes);
  intents.on('change', (change) => events.emit('tokenIntent', change));
  webhooks.deliveries.onChange((webhookId) => events.emit('webhookDelivery', webhookId));

  // The proxy must never loop back into this service; the echo destination stays reachable on purpose.
  const forwarder = createForwarder({
    timeoutMs: config.proxyTimeoutMs,
    denyPrivateDestinations: config.denyPrivateDestinations,
    ownPorts: () => [apiPort],
    echoPorts,
  });

  const proxyCore = createProxyCore(config, tokens, expressions, forwarder, outbox);
  const codeAllowed = operatorFixed === null || config.allowCode;
  const codeRuntime = lazyCodeRuntime(
    () => createCodeRuntime({ engineUrl: () => http.url, log: config.log, nodeBtTimeoutMs: config.codeSyncLimitMs, builtWorkers }),
    codeAllowed ? null : CODE_OFF,
  );
  if (codeAllowed && (proxies.holdsCode() || reactors.holdsAny())) codeRuntime.warm();
  const recordAction = actionRecorder(history);
  const runtimeKey = runtimeKeys(applications, (key, proxy) => void recordAction(undefined, () => key, () => runtimeKeyMade(applications, key, proxy)));
  const callKey = callKeys(applications, (app, proxy) => void recordAction(undefined, () => app, () => callKeyApplicationSet(app, proxy)));

  const startedAt = new Date().toISOString();
  /** Where people reach the engine: its first public URL, else its local one. */
  const publicUrl = () => config.publicUrls[0] ?? http.url;
  // A declaration, so the workbench can take it before `http` exists; nothing calls it until a request arrives.
  function status(): EngineStatus {
    return {
      url: http.url,
      echoUrl: echo?.url ?? null,
      dataDir: config.dataDir,
      headerPrefix: config.headerPrefix,
      tokenCount: tokenCount.current(),
      applicationCount: applications.count(),
      startedAt,
    };
  }
  const authenticator = new Authenticator(applications, sessions);
  const welcome = new Welcome(applications, holdWelcome ? bootstrapKeys : null);
  const secrets = new SecretStore(units, sealer);
  await secrets.load();
  const proxyChecks = { applications, expressions, secrets, dependenciesDir: config.codeDependenciesDir };
  const fileIdentities = new FileIdentities(units, sealer, 'proxy');
  const reactorIdentities = new FileIdentities(units, sealer, 'reactor');
  const reactorFiles = reactorFolderKind({
    reactors,
    identities: reactorIdentities,
    applications,
    secrets,
    dependenciesDir: config.codeDependenciesDir,
    codeLoaded: codeRuntime.warm,
  });
  const proxyFolder = new ProxyFolder({
    kinds: [reactorFiles, proxyFolderKind({ proxies, identities: fileIdentities, checks: proxyChecks, codeLoaded: codeRuntime.warm })],
    secrets,
    report: proxyFilesReport ?? config.log,
  });
  const proxiesSetting = new ProxiesFolderSetting(units, config.proxiesDir, operatorFixed);
  await proxiesSetting.load();
  const proxyFiles = new ProxyFiles({ folder: proxyFolder, proxies, identities: fileIdentities, secrets, checks: proxyChecks, setting: proxiesSetting });
  const reactorExport = new ReactorExport({ folder: proxyFolder, reactors, identities: reactorIdentities, secrets, applications });
  await proxyFolder.open(proxiesSetting.initial());
  const proxyDeps: ProxyRouteDeps = { proxies, applications, expressions, tenantId, codeSaved: codeRuntime.warm, dependenciesDir: config.codeDependenciesDir };
  const door = frontDoor({
    baseUrl: () => http.url,
    headerPrefix: config.headerPrefix,
    events,
    resolve(request) {
      const active = environments.variables();
      return { resolved: resolveReferences(request, active, secrets, 'send'), environment: active.environment };
    },
  });
  /** Empties the vault as if new; the new first keys (if any) wait for the welcome view. At once over SQLite. */
  function wipe(refill?: () => Unit<void>) {
    return afterRun(wipeVault({ tokens: tokenStore, transactions, applications, proxies, reactors, webhooks: webhooks.store }, refill), ({ keys, ...wiped }) => {
      welcome.hold(keys);
      // Their tokens are gone: so is the plaintext the Composer's answers held of them.
      door.forgetAnswers();
      return wiped;
    });
  }
  /**
   * DELETE /tenants/self: the vault wiped, the tenant new again, and the service goes on with the seed it started with,
   * all in the wipe's one unit.
   */
  function deleteTenant() {
    let reset: TenantRow | undefined;
    let seeded: readonly TokenWrite[] = [];
    return afterRun(
      wipe(function* () {
        reset = yield* tenant.resetting();
        yield* activeTokens.clearing();
        if (seed) seeded = yield* seedingEmptied(seed, applications, tokens);
      }),
      () => {
        tenant.settle(reset!);
        tokenStore.settle(seeded, true);
      },
    );
  }
  const workbench = createWorkbenchModel({
    status,
    settings: () => ({
      transactionTtlSeconds: config.transactionTtlSeconds,
      // A named person is never shown the owner's session.
      workbenchUrl: browserWorkbench?.url(publicUrl(), actingPerson() === undefined) ?? null,
      limits: limits.state(),
      retention: retention.state(),
      collections: collectionsFolder.state(collections.folder),
      answers: answers.state(),
      tokenIntents: intentTtl.state(),
      tenantDelete: tenantDelete.state(),
      logs: logRetention.state(),
    }),
    changeCollectionsFolder: async (folder) => collections.relocate(await collectionsFolder.change(folder)),
    changeLimits: (change) => limits.change(change),
    changeRetention: (change) => retention.change(change),
    changeHistoryAnswers: (change) => answers.change(change),
    changeTokenIntentTtl: (change) => intentTtl.change(change),
    changeTenantDelete: (change) => tenantDelete.change(change),
    changeLogRetention: (change) => logRetention.change(change),
    welcome,
    wipe: () => wipe(),
    history,
    events,
    transactions: transactionPanel,
    applications,
    collections,
    tokens,
    frontDoor: door,
    revealOutbound: (entry) => revealedOutbound(entry, tokens, expressions, (id) => authenticator.callerFor(id)),
    vault: { tokens, queries, transactions, callerFor: (id) => authenticator.callerFor(id) },
    checks: createRequestChecks({ tokens, expressions, headerPrefix: config.headerPrefix, callerFor: (id) => authenticator.callerFor(id), routes: [REACT_ROUTE] }),
    bodyLimit: () => config.maxBodyBytes,
    tokenSuggestions: new TokenSuggestions(tokenStore, tokens),
    tokenIntents: intents,
    remoteTargets: new RemoteTargets(units, sealer),
    secrets,
    environments,
    proxies: proxySettings(proxyDeps, () => proxyFolder.files()),
    proxyFiles,
    reactorExport,
    clientKeys,
    sessions,
    reactors: reactorSettings({ reactors, applications, codeSaved: codeRuntime.warm, dependenciesDir: config.codeDependenciesDir }),
    tenant: { store: tenant, usage },
    credentials,
    webhooks: webhookSettings({ ...webhooks.routes, deliveries: webhooks.deliveries, signer: webhooks.signer, wake: webhooks.dispatcher.wake, keyUrl: () => `${http.url}/keys/webhooks.v1.key` }),
  });
  // Typed: the workbench's fallback reads the server's URL, so inference would go round in a circle.
  const http: RunningHttpServer = await startHttpServer({
    config,
    routes: [
      ...tokenRoutes(tokens, queries, encrypted),
      ...transactionRoutes(transactions), ...applicationRoutes(applications),
      ...proxiesRoutes(proxyDeps),
      ...intentRoutes(intents, encrypted),
      ...proxyRoutes(proxyCore, openEncrypted, preconfiguredCalls({ proxies, core: proxyCore, tokens, expressions, tenantId, codeRuntime, runtimeKey, callKey, dependenciesDir: config.codeDependenciesDir, openEncrypted }), () => tenant.rules.ephemeralProxy),
      ...reactorRoutes({
        reactors,
        results: reactorResults,
        calls: reactorCalls({ reactors, tokens, expressions, tenantId, codeRuntime, runtimeKey, callKey, dependenciesDir: config.codeDependenciesDir, syncLimitMs: config.codeSyncLimitMs, asyncLimitMs: config.reactorAsyncLimitMs, outbox }),
        applications,
        tenantId,
        headerPrefix: config.headerPrefix,
        forwarder,
        callbackFirstRetryMs: config.reactorCallbackFirstRetryMs,
        codeSaved: codeRuntime.warm,
        dependenciesDir: config.codeDependenciesDir,
        log: config.log,
      }),
      ...clientKeyRoutes(clientKeys, () => webhooks.signer.publicKeyPem()),
      ...sessionRoutes(sessions),
      ...tenantRoutes({ tenant, usage, deletable: () => config.allowTenantDelete, remove: deleteTenant }),
      ...webhookRoutes(webhooks.routes),
      ...logRoutes(history, tenantId),
      ...catalogueRoutes(),
      ...enrichmentRoutes(),
    ],
    authenticator,
    idempotency,
    clients,
    requestLog: history,
    fallback: browserWorkbench?.routes(workbench, publicUrl, credentials),
    workbenchSentOn: (socket) => door.claim(socket),
  }).catch(async (error) => {
    proxyFolder.close();
    await history.close();
    await closeStorage();
    throw error;
  });
  apiPort = http.port;
  try {
    if (config.echoPort !== null) {
      echo = await startEchoServer({ host: config.host, port: config.echoPort, maxBodyBytes: config.maxBodyBytes, allowedOrigins: config.allowedOrigins });
    }
  } catch (error) {
    proxyFolder.close();
    await http.close();
    await history.close();
    await closeStorage();
    throw error;
  }

  // Rolls back what expired while stopped; a request that came first already sees those as expired.
  await transactions.start();
  await intentStore.reconcile();
  await intentStore.purgeExpired();
  // Serving already: tokens from before card search are indexed between requests.
  tokenStore.backlog.start(config.log);
  // What a previous run left pending is sent again now (at least once), once the service's own port is known.
  webhooks.dispatcher.start();
  const housekeeping = new Housekeeping(
    [
      { name: 'expired tokens', run: () => tokenStore.purgeExpired() },
      { name: 'expired token intents', run: () => intentStore.purgeExpired() },
      { name: 'idempotency records', run: () => idempotency.prune() },
      // Another replica's transactions, which this one's expiry timer does not know of.
      { name: 'transaction expiry', run: () => transactions.expireDue() },
      { name: 'ended transactions', run: () => transactions.prune() },
      { name: 'reactor results', run: () => reactorResults.purgeExpired() },
      { name: 'lost reactor runs', run: () => reactorResults.failLost() },
      { name: 'client keys', run: () => clientKeys.purgeExpired() },
      { name: 'sessions', run: () => sessions.purgeExpired() },
      { name: 'active tokens', run: () => activeTokens.purgeOld() },
    ],
    { intervalMs: 60_000, leader, onError: (job, error) => config.log(`Housekeeping (${job}) failed: ${error instanceof Error ? error.message : String(error)}`) },
  );
  housekeeping.start();

  let stopped = false;
  return {
    url: http.url,
    port: http.port,
    echoUrl: echo?.url ?? null,
    config,
    events,
    bootstrapKeys,
    seedReport,
    history,
    outbox,
    get collectionsFolder() {
      return collections.folder;
    },
    transactions: transactionPanel,
    workbench,
    credentials,
    browserWorkbench: browserWorkbench && {
      url: browserWorkbench.url(publicUrl()),
      session: browserWorkbench.session,
      sessionInAddress: browserWorkbench.sessionInAddress,
      launchUrl: () => browserWorkbench.launchUrl(publicUrl()),
    },
    status,
    async stop() {
      if (stopped) return;
      stopped = true;
      await housekeeping.stop();
      transactions.stop();
      tokenCount.stop();
      tokenStore.backlog.stop();
      collections.close();
      proxyFolder.close();
      // A throwaway vault's temporary folder goes too, unless the user saved requests in it.
      if (defaultFolder.temporary && readdirSync(defaultFolder.folder).length === 0) rmdirSync(defaultFolder.folder);
      await Promise.all([http.close(), echo?.close(), forwarder.close(), webhooks.stop(), codeRuntime.close()]);
      // After the server: the last requests' entries are queued by now, and close writes them.
      await history.close();
      await activeTokens.flush();
      outbox.close();
      await closeStorage();
    },
  };
}
