import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startEngine, type Engine, type StartOptions } from '../../electron/engine';
import { TEST_BUILT_WORKERS_ENV } from './built-workers';
import { createDatabase, dropDatabase } from './postgres-cluster';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: T;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestEngine {
  engine: Engine;
  url: string;
  dataDir: string | null;
  /** The PostgreSQL database holding the vault, under the engine-on-postgres project; else null. */
  databaseUrl: string | null;
  managementKey: string;
  privateKey: string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** Calls a method of the workbench's table over HTTP, as the browser workbench does (this run's session unless given). */
  workbench<T = any>(name: string, request?: unknown, options?: { session?: string | null; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'tokenbench-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Every file under a folder (the data folder holds the vault, its history and the saved requests' folder). */
export function filesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Calls a running service over real HTTP; `key` defaults to none. */
export async function callApi<T = any>(baseUrl: string, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  if (options.key) headers['BT-API-KEY'] = options.key;
  const res = await request(baseUrl + path, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, body: parsed as T };
}

/**
 * Set (to the throwaway cluster's superuser URL) by the engine-on-postgres project's setup file: every engine a test
 * starts here then keeps its vault in a fresh PostgreSQL database, as `serve --database` does, instead of SQLite.
 */
export const TEST_POSTGRES_ENV = 'TOKENBENCH_TEST_POSTGRES_URL';

interface PostgresVault {
  databaseUrl: string;
  masterKey: Buffer;
}

/** The database behind each data folder a test named, so that starting on that folder again reopens the same vault. */
const vaultsByFolder = new Map<string, PostgresVault>();

/** Whether this run's test engines keep their vaults in PostgreSQL (the engine-on-postgres project). */
export const vaultsOnPostgres = (): boolean => process.env[TEST_POSTGRES_ENV] !== undefined;

/** The PostgreSQL database that stands for a data folder a test named, while vaults are on PostgreSQL. */
export const postgresVaultOf = (dataDir: string): string | undefined => vaultsByFolder.get(dataDir)?.databaseUrl;

/** A fresh database (or the one a named data folder had) and its master key, for an engine started over PostgreSQL. */
async function postgresVault(adminUrl: string, dataDir: string | null | undefined, masterKey: Buffer | undefined): Promise<PostgresVault> {
  const known = dataDir ? vaultsByFolder.get(dataDir) : undefined;
  if (known) return known;
  const vault = { databaseUrl: await createDatabase(adminUrl, 'engine'), masterKey: masterKey ?? randomBytes(32) };
  if (dataDir) vaultsByFolder.set(dataDir, vault);
  return vault;
}

/**
 * A real engine on a free port: an on-disk vault in a fresh temp folder (or in memory), no echo server unless asked,
 * and the two bootstrap keys a first start prints (taken from the welcome view unless `keepWelcome`). Under the
 * engine-on-postgres project the vault is a PostgreSQL database instead (`TEST_POSTGRES_ENV`), dropped at the stop
 * unless the test named a data folder to start on again.
 */
export async function startTestEngine(
  options: StartOptions & { inMemory?: boolean; keepWelcome?: boolean; workbenchRoutes?: boolean } = {},
): Promise<TestEngine> {
  const { inMemory, keepWelcome, workbenchRoutes, ...rest } = options;
  const adminUrl = rest.databaseUrl ? undefined : process.env[TEST_POSTGRES_ENV];
  const postgres = adminUrl ? await postgresVault(adminUrl, rest.dataDir, rest.masterKey) : null;
  const dataDir = postgres ? null : inMemory ? null : (rest.dataDir ?? tempDir());
  // Tests of the workbench's routes need its session, not the page: a one-file stand-in spares them the renderer build,
  // which a clean clone has only after the Playwright run.
  const uiDir = workbenchRoutes ? tempDir('tokenbench-ui-') : null;
  if (uiDir) writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>Tokenbench</title>');
  const browserWorkbench = uiDir ? { uiDir } : rest.browserWorkbench;
  // The test takes the first keys, as a user does from serve's output: the workbench's welcome view is for the tests of
  // it (keepWelcome), and would stand in front of every other page.
  const builtWorkers = process.env[TEST_BUILT_WORKERS_ENV];
  const engine = await startEngine({ port: 0, echoPort: null, log: () => undefined, builtWorkers, ...rest, ...postgres, browserWorkbench, dataDir, welcome: keepWelcome === true });
  const keys = engine.bootstrapKeys;
  return {
    engine,
    url: engine.url,
    dataDir,
    databaseUrl: postgres?.databaseUrl ?? rest.databaseUrl ?? null,
    managementKey: keys?.management.key ?? '',
    privateKey: keys?.private.key ?? '',
    call: (method, path, callOptions) => callApi(engine.url, method, path, callOptions),
    workbench(name, request = {}, { session = engine.browserWorkbench?.session ?? null, headers = {} } = {}) {
      return callApi(engine.url, 'POST', `/_workbench/${name}`, { body: request, headers: session === null ? headers : { ...headers, 'X-Tokenbench-Session': session } });
    },
    async stop() {
      await engine.stop();
      if (dataDir && !rest.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (postgres && !rest.dataDir) await dropDatabase(postgres.databaseUrl);
      if (uiDir) rmSync(uiDir, { recursive: true, force: true });
    },
  };
}

/** A private application that may do everything to every token and sees plaintext: reads prove what is stored. */
export async function revealEverythingKey(t: TestEngine, name = 'reveal everything'): Promise<string> {
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: {
      name,
      type: 'private',
      rules: [
        {
          description: 'all',
          priority: 1,
          container: '/',
          transform: 'reveal',
          permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'],
        },
      ],
    },
  });
  if (app.status !== 201) throw new Error(`could not create the reveal application: ${app.text}`);
  return app.body.key;
}

/** Makes something through the API and answers its id; anything but a 201 fails the test, with the answer. */
async function created(t: TestEngine, path: string, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.call('POST', path, { key, body });
  if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${res.text}`);
  return res.body.id;
}

/** A token made by the first private application. */
export const createToken = (t: TestEngine, type: string, data: unknown, extra: Record<string, unknown> = {}) => created(t, '/tokens', t.privateKey, { type, data, ...extra });

/** A private application (its permissions or rules in `body`) made by the management application. */
export const createPrivateApplication = (t: TestEngine, name: string, body: Record<string, unknown>) => created(t, '/applications', t.managementKey, { name, type: 'private', ...body });
