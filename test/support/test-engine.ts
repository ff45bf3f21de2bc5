import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startEngine, type Engine, type StartOptions } from '../../electron/engine';

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
 * A real engine on a free port: an on-disk vault in a fresh temp folder (or in memory), no echo server unless asked,
 * and the two bootstrap keys a first start prints (taken from the welcome view unless `keepWelcome`).
 */
export async function startTestEngine(
  options: StartOptions & { inMemory?: boolean; keepWelcome?: boolean; workbenchRoutes?: boolean } = {},
): Promise<TestEngine> {
  const { inMemory, keepWelcome, workbenchRoutes, ...rest } = options;
  const dataDir = inMemory ? null : (rest.dataDir ?? tempDir());
  // Tests of the workbench's routes need its session, not the page: a one-file stand-in spares them the renderer build,
  // which a clean clone has only after the Playwright run.
  const uiDir = workbenchRoutes ? tempDir('tokenbench-ui-') : null;
  if (uiDir) writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>Tokenbench</title>');
  const browserWorkbench = uiDir ? { uiDir } : rest.browserWorkbench;
  // The test takes the first keys, as a user does from serve's output: the workbench's welcome view is for the tests of
  // it (keepWelcome), and would stand in front of every other page.
  const engine = await startEngine({ port: 0, echoPort: null, log: () => undefined, ...rest, browserWorkbench, dataDir, welcome: keepWelcome === true });
  const keys = engine.bootstrapKeys;
  return {
    engine,
    url: engine.url,
    dataDir,
    managementKey: keys?.management.key ?? '',
    privateKey: keys?.private.key ?? '',
    call: (method, path, callOptions) => callApi(engine.url, method, path, callOptions),
    workbench(name, request = {}, { session = engine.browserWorkbench?.session ?? null, headers = {} } = {}) {
      return callApi(engine.url, 'POST', `/_workbench/${name}`, { body: request, headers: session === null ? headers : { ...headers, 'X-Tokenbench-Session': session } });
    },
    async stop() {
      await engine.stop();
      if (dataDir && !rest.dataDir) rmSync(dataDir, { recursive: true, force: true });
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
