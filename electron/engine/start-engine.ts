import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { ApplicationStore, type NewApiKey } from './access/application-store';
import { applicationRoutes } from './access/application-routes';
import { Authenticator } from './access/authenticator';
import { MANAGEMENT_PERMISSIONS, TOKEN_PERMISSIONS } from './access/permissions';
import { startEchoServer, type EchoServer } from './echo/echo-server';
import { resolveConfig, type EngineConfig } from './engine-config';
import { ExpressionEngine } from './expressions';
import { RequestLog, type RequestLogEntry } from './history/request-log';
import { applySeed } from './seed/apply-seed';
import type { SeedFile, SeedReport } from './seed/seed-file';
import { startHttpServer } from './server/http-server';
import { IdempotencyStore } from './server/idempotency';
import { loadOrCreateMasterKey, Sealer } from './vault/crypto';
import { openDatabase, type Db } from './vault/database';
import { TokenQueries } from './vault/token-queries';
import { tokenRoutes } from './vault/token-routes';
import { TokenService } from './vault/token-service';
import { TokenStore } from './vault/token-store';

export interface EngineEvents {
  request: [RequestLogEntry];
}

/** Keys made on the first start of an empty store: shown once, never stored in plaintext. */
export interface BootstrapKeys {
  management: NewApiKey & { application_id: string };
  private: NewApiKey & { application_id: string };
}

export interface EngineStatus {
  url: string;
  echoUrl: string | null;
  dataDir: string | null;
  headerPrefix: string;
  tokenCount: number;
  applicationCount: number;
  startedAt: string;
}

export interface Engine {
  readonly url: string;
  readonly port: number;
  readonly echoUrl: string | null;
  readonly config: EngineConfig;
  readonly events: EventEmitter<EngineEvents>;
  /** Set when this start created the first applications. */
  readonly bootstrapKeys: BootstrapKeys | null;
  readonly seedReport: SeedReport | null;
  readonly history: RequestLog;
  status(): EngineStatus;
  stop(): Promise<void>;
}

export interface StartOptions extends Partial<EngineConfig> {
  seed?: SeedFile;
}

function tenantIdOf(db: Db): string {
  const row = db.prepare("SELECT value FROM settings WHERE key = 'tenant_id'").get() as { value: string } | undefined;
  if (row) return row.value;
  const id = randomUUID();
  db.prepare("INSERT INTO settings (key, value) VALUES ('tenant_id', ?)").run(id);
  return id;
}

function bootstrap(applications: ApplicationStore): BootstrapKeys | null {
  if (applications.count() > 0) return null;
  const make = (name: string, type: 'management' | 'private', permissions: string[]) => {
    const { application, key } = applications.create({ name, type, permissions, rules: [] }, null, { create: true });
    return { ...key!, application_id: application.id };
  };
  return {
    management: make('Tokenbench management', 'management', [...MANAGEMENT_PERMISSIONS]),
    private: make('Tokenbench backend', 'private', [...TOKEN_PERMISSIONS]),
  };
}

/** Starts the engine: vault, access, HTTP service and echo destination. Never imports electron. */
export async function startEngine(options: StartOptions = {}): Promise<Engine> {
  const { seed, ...partial } = options;
  const config = resolveConfig(partial);
  const db = openDatabase({ dataDir: config.dataDir, nativeBinding: config.nativeBinding });
  const sealer = new Sealer(loadOrCreateMasterKey(config.dataDir));
  const tenantId = tenantIdOf(db);

  const applications = new ApplicationStore(db, sealer, tenantId);
  const expressions = new ExpressionEngine();
  const tokenStore = new TokenStore(db, sealer);
  const tokens = new TokenService(tokenStore, sealer, expressions, tenantId);
  const queries = new TokenQueries(tokenStore, tokens);
  const history = new RequestLog(db, config.historyLimit);
  const idempotency = new IdempotencyStore(db, sealer);

  const seedReport = seed ? applySeed(seed, applications, tokens) : null;
  const bootstrapKeys = bootstrap(applications);

  const events = new EventEmitter<EngineEvents>();
  history.on('entry', (entry) => events.emit('request', entry));

  let echo: EchoServer | null = null;
  const http = await startHttpServer({
    config,
    routes: [...tokenRoutes(tokens, queries), ...applicationRoutes(applications)],
    authenticator: new Authenticator(applications),
    idempotency,
    requestLog: history,
  }).catch((error) => {
    db.close();
    throw error;
  });
  try {
    if (config.echoPort !== null) echo = await startEchoServer({ host: config.host, port: config.echoPort });
  } catch (error) {
    await http.close();
    db.close();
    throw error;
  }

  const housekeeping = setInterval(() => {
    tokenStore.purgeExpired();
    idempotency.prune();
  }, 60_000).unref();

  const startedAt = new Date().toISOString();
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
    status: () => ({
      url: http.url,
      echoUrl: echo?.url ?? null,
      dataDir: config.dataDir,
      headerPrefix: config.headerPrefix,
      tokenCount: tokenStore.count(),
      applicationCount: applications.count(),
      startedAt,
    }),
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(housekeeping);
      await Promise.all([http.close(), echo?.close()]);
      history.flush();
      db.close();
    },
  };
}
