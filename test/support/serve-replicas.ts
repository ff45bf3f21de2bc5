import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port';
import { freshDatabase } from './postgres-suite';
import { startServe, type ServeProcess } from './serve-process';
import { tempDir } from './test-engine';

/** The keys of the seed every replica starts with: known in advance, so no replica has first-start keys to print. */
export const REPLICA_KEYS = {
  management: 'key_test_replicas_ops_0123456789abcdef',
  private: 'key_test_replicas_backend_0123456789abcd',
} as const;

/** The one token the seed holds. */
export const REPLICA_SEED_TOKEN = '5eed0000-4b7a-4c3e-9f10-2a3b4c5d6e7f';

const SEED = {
  applications: [
    {
      name: 'replicas-ops',
      type: 'management',
      key: REPLICA_KEYS.management,
      permissions: ['application:create', 'application:read', 'application:update', 'application:delete', 'tenant:read', 'tenant:update', 'webhook:create', 'webhook:read', 'log:read'],
    },
    {
      name: 'replicas-backend',
      type: 'private',
      key: REPLICA_KEYS.private,
      rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:use'] }],
    },
  ],
  tokens: [{ id: REPLICA_SEED_TOKEN, type: 'token', data: 'seeded', metadata: { seeded: 'replicas' } }],
};

/** One `serve` replica: its port stays its own across a kill and a restart, as behind a load balancer. */
export interface ServeReplica {
  readonly name: string;
  readonly port: number;
  /** http://127.0.0.1:PORT once it serves. */
  readonly url: string;
  /** The running process (replaced by restart). */
  readonly process: ServeProcess;
  /** SIGKILL, as a crash or an OOM kill: nothing of its own shutdown runs; resolves once it is gone. */
  kill9(): Promise<void>;
  /** Starts it again on its port with the same flags (after kill9 or stop). */
  restart(): Promise<void>;
  /** SIGTERM and wait for its exit. */
  stop(): Promise<void>;
}

export interface ServeReplicas {
  /** The fresh database every replica shares (a superuser URL of the run's throwaway cluster). */
  readonly databaseUrl: string;
  /** The one TOKENBENCH_SESSION_SECRET every replica has, so a workbench session is good on each. */
  readonly sessionSecret: string;
  readonly replicas: ServeReplica[];
  /** Stops every replica still running. */
  stop(): Promise<void>;
}

export interface ServeReplicasOptions {
  /** Names the fresh database (lower-case letters, digits and _). */
  name: string;
  count?: number;
  /** Flags added to every replica's. */
  args?: string[];
  /** Start them all at once (as a rolling deploy's first start may), not one after the other. */
  together?: boolean;
}

/**
 * N `serve` processes over one fresh database of the run's throwaway cluster, each with `--database`, the same
 * TOKENBENCH_MASTER_KEY, TOKENBENCH_SESSION_SECRET and `--seed`, on a port of its own. Only from a postgres-*.test.ts
 * suite (freshDatabase needs the postgres project's cluster).
 */
export async function startServeReplicas({ name, count = 2, args = [], together = false }: ServeReplicasOptions): Promise<ServeReplicas> {
  const databaseUrl = await freshDatabase(name);
  const folder = tempDir('tokenbench-replicas-');
  const seedFile = join(folder, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(SEED));
  // A stand-in for the built UI, so every replica serves the workbench (and its live events) without `npm run build`.
  const uiDir = join(folder, 'ui');
  mkdirSync(uiDir);
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>Tokenbench</title>');
  const env = {
    TOKENBENCH_MASTER_KEY: randomBytes(32).toString('base64'),
    TOKENBENCH_SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOKENBENCH_UI_DIR: uiDir,
  };
  // The URL travels in the environment, as an operator would keep its password off the command line.
  const flagsOf = (port: number) => ['--port', String(port), '--echo-port', '0', '--seed', seedFile, '--collections', join(folder, 'collections'), ...args];

  const replica = async (index: number): Promise<ServeReplica> => {
    const port = await freePort();
    const start = () => startServe(flagsOf(port), { env: { ...env, TOKENBENCH_DATABASE_URL: `${databaseUrl}?application_name=replica-${index}` }, timeoutMs: 60_000 });
    let running: ServeProcess | null = await start();
    let current = running;
    const end = async (signal: NodeJS.Signals) => {
      if (running === null) return;
      const ending = running;
      running = null;
      ending.child.kill(signal);
      await ending.exited;
    };
    return {
      name: `replica-${index}`,
      port,
      get url() {
        return current.url;
      },
      get process() {
        return current;
      },
      kill9: () => end('SIGKILL'),
      stop: () => end('SIGTERM'),
      async restart() {
        await end('SIGTERM');
        current = running = await start();
      },
    };
  };

  const indexes = Array.from({ length: count }, (_, i) => i);
  const results: PromiseSettledResult<ServeReplica>[] = [];
  if (together) results.push(...(await Promise.allSettled(indexes.map(replica))));
  else {
    for (const index of indexes) {
      const [result] = await Promise.allSettled([replica(index)]);
      results.push(result);
      if (result.status === 'rejected') break;
    }
  }
  const replicas = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(replicas.map((r) => r.stop()));
    throw failed.reason;
  }
  return { databaseUrl, sessionSecret: env.TOKENBENCH_SESSION_SECRET, replicas, stop: () => Promise.all(replicas.map((r) => r.stop())).then(() => undefined) };
}

/** What serve says while startEngine opens SQLite only. */
const NOT_WIRED = 'PostgreSQL storage is not wired into serve yet';

/**
 * Whether `serve --database` starts: one replica on a fresh database, stopped at once. False only for serve's own
 * refusal of a database; any other failure to start is thrown, so a broken start fails the suite instead of skipping it.
 */
export async function serveTakesDatabase(): Promise<boolean> {
  try {
    await (await startServeReplicas({ name: 'replicas_probe', count: 1 })).stop();
    return true;
  } catch (error) {
    if (error instanceof Error && error.message.includes(NOT_WIRED)) return false;
    throw error;
  }
}
