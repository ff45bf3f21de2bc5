/**
 * Replicas over PostgreSQL (issue 43): the vault's token cells and the proxy's 1 KB cells against one serve over SQLite,
 * one serve replica over PostgreSQL and two replicas over the same database, the load generator spreading its
 * connections over the replicas in turn (no balancer in between). Every process's CPU is metered, so what limits a
 * system shows beside its figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, findPostgresBinaries, NO_POSTGRES, startPostgresCluster } from '../support/postgres-cluster';
import type { ChildServer } from './child-process';
import { runLoad, type LoadResult, type RequestPlan } from './load';
import { cpuSeconds, treeCpuSeconds, type CpuReading } from './process-cpu';
import { benchBody, createBenchCards, proxyPlan, type BenchCard } from './proxy-requests';
import type { Measurement, SuiteResult, Table } from './report';
import { inRounds, medianRound } from './rounds';
import { startProxyDestination, startTokenbench, type BenchDatabase, type TokenbenchInfo } from './servers';
import type { VaultBenchOptions } from './vault-bench';
import { fillVault, type FilledToken } from './vault-fill';
import { createPlan, readPlan } from './vault-plans';

export type ReplicasBenchOptions = Omit<VaultBenchOptions, 'profileDir'>;

const SQLITE = 'SQLite, 1 serve';
const ONE_REPLICA = 'PostgreSQL, 1 replica';
const TWO_REPLICAS = 'PostgreSQL, 2 replicas';
const POSTGRES = 'postgres';
const CARDS = 20;
const PROXY_BODY_BYTES = 1024;

/** One vault filled for the cells: its key, the tokens the reads draw from. */
interface Vault {
  privateKey: string;
  tokens: FilledToken[];
}

/** A system under load: the servers the connections are spread over, and every process whose CPU it costs. */
interface System {
  name: string;
  urls: string[];
  vault: Vault;
  /** The first server's process: the scenario table's server CPU. */
  servePid: number;
  /** By name, in the CPU table's columns. */
  metered: Record<string, CpuReading>;
}

/** The first serve on an empty vault prints the keys; its cards and fill are what every cell uses. */
async function fillNew(server: ChildServer<TokenbenchInfo>, tokens: number, log: (line: string) => void, name: string): Promise<Vault & { cards: BenchCard[] }> {
  const { url, privateKey } = server.info;
  if (!privateKey) throw new Error(`${name}: the service printed no private key on its first start`);
  log(`${name}: ${CARDS} cards and ${tokens.toLocaleString('en-US')} tokens…`);
  const cards = await createBenchCards(url, privateKey, CARDS);
  return { privateKey, cards, tokens: await fillVault(url, privateKey, tokens) };
}

const cores = (n: number | null | undefined) => (n === null || n === undefined ? '–' : n.toFixed(2));

/** Per cell and system, the cores every process kept busy: which one ran out first. */
function cpuTable(runs: { case: string; system: string; connections: number; load: LoadResult }[], columns: string[]): Table {
  return {
    title: 'CPU cores per process in the median round (serve 1 and 2: the replicas; postgres: the server and all its backends)',
    columns: ['case', 'conns', 'system', 'req/s', ...columns, 'load gen', 'all', 'server CPU µs/req'],
    rows: runs.map(({ case: name, system, connections, load }) => {
      const metered = columns.map((column) => load.meteredCores?.[column] ?? null);
      const serverSide = metered.reduce<number>((sum, n) => sum + (n ?? 0), 0);
      const all = serverSide + (load.loadGeneratorCores ?? 0);
      return [
        name,
        connections,
        system,
        Math.round(load.requestsPerSecond).toLocaleString('en-US'),
        ...metered.map(cores),
        cores(load.loadGeneratorCores),
        cores(all),
        Math.round((serverSide / load.requestsPerSecond) * 1e6),
      ];
    }),
  };
}

/**
 * Starts the SQLite serve, a throwaway PostgreSQL cluster and two replicas over one database of it, fills both vaults
 * alike, then per cell and connection count runs the three systems in turn, round after round.
 */
export async function runReplicasBench(options: ReplicasBenchOptions): Promise<SuiteResult> {
  const { log, durationSeconds, warmupSeconds } = options;
  const bindir = findPostgresBinaries();
  if (!bindir) {
    log(NO_POSTGRES);
    return { suite: 'replicas', title: 'Replicas over PostgreSQL: skipped', baselineSystem: SQLITE, measurements: [], tables: [], notes: [NO_POSTGRES] };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-replicas-bench-'));
  const running: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const server of running.splice(0).reverse()) await server.stop();
  };
  try {
    const sqlite = await startTokenbench(dataDir);
    running.push(sqlite);
    const sqliteVault = await fillNew(sqlite, options.tokens, log, SQLITE);

    log('Starting a throwaway PostgreSQL cluster…');
    const cluster = await startPostgresCluster(bindir);
    running.push(cluster);
    const database: BenchDatabase = { url: await createDatabase(cluster.url, 'bench_replicas'), masterKey: randomBytes(32).toString('base64') };
    const first = await startTokenbench(database);
    running.push(first);
    const postgresVault = await fillNew(first, options.tokens, log, ONE_REPLICA);
    // Started once the first has made the vault: it finds the keys and the tokens there.
    const second = await startTokenbench(database);
    running.push(second);
    const destination = await startProxyDestination();
    running.push(destination);

    const postgres = () => treeCpuSeconds(cluster.pid);
    const serve = (server: ChildServer<unknown>) => () => cpuSeconds(server.pid);
    const systems: System[] = [
      { name: SQLITE, urls: [sqlite.info.url], vault: sqliteVault, servePid: sqlite.pid, metered: { 'serve 1': serve(sqlite) } },
      { name: ONE_REPLICA, urls: [first.info.url], vault: postgresVault, servePid: first.pid, metered: { 'serve 1': serve(first), [POSTGRES]: postgres } },
      {
        name: TWO_REPLICAS,
        urls: [first.info.url, second.info.url],
        vault: postgresVault,
        servePid: first.pid,
        metered: { 'serve 1': serve(first), 'serve 2': serve(second), [POSTGRES]: postgres },
      },
    ];

    // Card numbers go on past both fills, so every create is a new card in either vault.
    let seq = options.tokens + CARDS + 1;
    const nextSeq = () => seq++;
    const proxyCase = (expressions: number) => {
      // Both vaults hold the same cards under the same ids, so one body fits both.
      const body = benchBody(PROXY_BODY_BYTES, sqliteVault.cards.slice(0, expressions));
      return { name: `proxy 1 KB, ${expressions} expr`, proxy: true, plan: () => proxyPlan(body, body.detokenizedBytes, nextSeq) };
    };
    const cases: { name: string; proxy: boolean; plan(vault: Vault): RequestPlan }[] = [
      { name: 'token read', proxy: false, plan: (vault) => readPlan(vault.tokens) },
      { name: 'token create', proxy: false, plan: () => createPlan(nextSeq) },
      proxyCase(0),
      proxyCase(CARDS),
    ];

    const measurements: Measurement[] = [];
    for (const { name, proxy, plan } of cases) {
      for (const connections of options.connections) {
        const rounds = await inRounds(options.rounds, systems, (system, round) => {
          log(`${name}, ${connections} connection(s), round ${round} of ${options.rounds}: ${system.name}…`);
          const headers = {
            'content-type': 'application/json',
            'bt-api-key': system.vault.privateKey,
            ...(proxy && { 'bt-proxy-url': destination.info.url }),
          };
          return runLoad(plan(system.vault), {
            url: system.urls,
            serverPid: system.servePid,
            metered: system.metered,
            headers,
            connections,
            durationSeconds,
            warmupSeconds,
          });
        });
        for (const [i, system] of systems.entries()) measurements.push({ case: name, system: system.name, connections, load: medianRound(rounds[i]) });
      }
    }
    await stopAll();

    return {
      suite: 'replicas',
      title: `Replicas over PostgreSQL: the token and 1 KB proxy cells on ${systems.map((s) => s.name).join(', ')}`,
      baselineSystem: SQLITE,
      measurements,
      tables: [cpuTable(measurements, ['serve 1', 'serve 2', POSTGRES])],
      notes: [
        `Each system is the production build of the serve CLI (as the vault suite starts it). ${SQLITE}: an on-disk vault. PostgreSQL: a throwaway cluster of this machine's PostgreSQL (${bindir}) on loopback TCP with fsync, synchronous_commit and full_page_writes off (as the test suites run it: commits cost no disk flush, so writes here are faster than on a durable server), and two serve replicas over one database of it, started with the same master key; each replica has pg's default pool of 10 connections. ${ONE_REPLICA} is the first replica alone; ${TWO_REPLICAS} are both, the load generator's connections going to them in turn (connection i to replica i mod 2), as a round-robin balancer would spread them, with no balancer process in between.`,
        `Both vaults were filled alike: ${CARDS} cards (card-01…) and ${options.tokens.toLocaleString('en-US')} tokens through POST /tokenize. token read and token create are the vault suite's cases (GET /tokens/{id} at random over the fill, POST /tokens with a new card each time, the same checks); the proxy cells are the proxy suite's ephemeral POST /proxy with a 1 KB body holding 0 or 20 expressions, to a bare node:http destination in its own process. "vs baseline" is req/s ÷ ${SQLITE}'s in the same cell.`,
        `Each cell ran ${options.rounds} round(s), the three systems in turn (every other round reversed), ${warmupSeconds} s unmeasured warm-up + ${durationSeconds} s measured each; figures are the round with the median req/s, wrong answers count from every round. Load generator, serve processes, PostgreSQL and the destination all share this machine's cores: the CPU table shows who had them.`,
      ],
    };
  } finally {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
