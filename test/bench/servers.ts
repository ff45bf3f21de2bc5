import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ENGINE_NODE_FLAGS } from '../../electron/cli/engine-node-flags';
import { DATABASE_URL_ENV, MASTER_KEY_ENV } from '../../electron/cli/serve-options';
import { BASELINE_READY, type BaselineReplies } from './baseline-server';
import { servingUrl } from './child-announce';
import { REPO_ROOT, startChildServer, type ChildServer } from './child-process';

export interface TokenbenchInfo {
  url: string;
  /**
   * The bootstrap private application's key (bare token:* permissions, so reads are masked); printed on the
   * vault's first start only, null on later starts.
   */
  privateKey: string | null;
  /** The bootstrap management application's key (application:* and proxy:*); like privateKey, first start only. */
  managementKey: string | null;
  /** The browser workbench's address with this run's session; null when the renderer is not built. */
  workbenchUrl: string | null;
  /** The built-in echo destination's address. */
  echoUrl: string | null;
}

/** A vault over PostgreSQL instead of a data folder: what every replica of one service is started with. */
export interface BenchDatabase {
  url: string;
  /** The vault's master key (base64 of 32 bytes), the same on every replica. */
  masterKey: string;
}

export interface TokenbenchOptions {
  /** Runs it under --cpu-prof (the profile is written when it stops). */
  cpuProfileDir?: string;
  /** More `serve` options. */
  args?: string[];
  /** Another build's CLI (an absolute path; see git-ref-build.ts): it serves its own build of the workbench. */
  cli?: string;
}

const SERVING = /Tokenbench is serving (http:\/\/\S+)/;
const PRIVATE_KEY = /private key \(token:\*\):\s+(\S+)/;
const MANAGEMENT_KEY = /management key \([^)]*\):\s+(\S+)/;
const WORKBENCH = /Workbench: (http:\/\/\S+)/;
const ECHO = /Echo destination at (http:\/\/\S+)/;

/** The production build of the CLI (`npm run build`, which `npm run bench` runs first): what the app ships. */
export const BUILT_CLI = 'out/main/serve.js';

/**
 * The real service through its built CLI (`serve`), started with the engine's Node flags as `npm run serve` starts
 * it: an on-disk vault in the data folder `vault` (or a replica over a PostgreSQL database), a free port, no echo
 * destination unless `args` give it a port.
 */
export function startTokenbench(vault: string | BenchDatabase, { cpuProfileDir, args = [], cli = BUILT_CLI }: TokenbenchOptions = {}): Promise<ChildServer<TokenbenchInfo>> {
  if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });
  if (!existsSync(resolve(REPO_ROOT, cli))) throw new Error(`${cli} is missing: run the benchmark with \`npm run bench\`, which builds first`);
  // The database's URL and key go in the environment, as an operator keeps them off the command line.
  const storage = typeof vault === 'string'
    ? { args: ['--data-dir', vault] }
    : { args: [], env: { [DATABASE_URL_ENV]: vault.url, [MASTER_KEY_ENV]: vault.masterKey } };
  return startChildServer({
    script: cli,
    args: ['--port', '0', '--echo-port', '0', ...storage.args, ...args],
    env: storage.env,
    nodeFlags: [...ENGINE_NODE_FLAGS, ...(cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [])],
    // The CLI prints its start lines in one write of well under PIPE_BUF bytes, so they arrive together.
    ready: (stdout) => {
      const url = SERVING.exec(stdout)?.[1];
      return url ? { url, privateKey: PRIVATE_KEY.exec(stdout)?.[1] ?? null, managementKey: MANAGEMENT_KEY.exec(stdout)?.[1] ?? null, workbenchUrl: WORKBENCH.exec(stdout)?.[1] ?? null, echoUrl: ECHO.exec(stdout)?.[1] ?? null } : undefined;
    },
  });
}

/** A bare node:http server answering fixed JSON (see baseline-server.ts). */
export function startBaseline(replies: BaselineReplies): Promise<ChildServer<{ url: string }>> {
  return startChildServer({
    script: 'test/bench/baseline-server.ts',
    env: { BASELINE_REPLIES: JSON.stringify(replies) },
    ready: (stdout) => {
      const url = BASELINE_READY.exec(stdout)?.[1];
      return url ? { url } : undefined;
    },
  });
}

/** The proxy benchmark's destination: answers {"len": <body bytes>} (see proxy-destination-server.ts). */
export function startProxyDestination(): Promise<ChildServer<{ url: string }>> {
  return startChildServer({ script: 'test/bench/proxy-destination-server.ts', ready: servingUrl });
}

/**
 * fastify + @fastify/http-proxy in front of `upstream` (see fastify-proxy-server.ts), under the same V8 settings as
 * Tokenbench: without them it falls into the same back-to-back full GCs at 100 KB (engine-node-flags.ts).
 */
export function startFastifyProxy(upstream: string): Promise<ChildServer<{ url: string }>> {
  return startChildServer({
    script: 'test/bench/fastify-proxy-server.ts',
    nodeFlags: ENGINE_NODE_FLAGS,
    env: { PROXY_UPSTREAM: upstream },
    ready: servingUrl,
  });
}
