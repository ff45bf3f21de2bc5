import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINE_NODE_FLAGS } from '../../electron/cli/engine-node-flags';
import type { ChildServer } from './child-process';
import { summarizeCpuProfiles } from './cpu-profile';
import { buildsToCompare, type ComparedBuild } from './git-ref-build';
import { runLoad } from './load';
import { NGINX_BINARY, startNginx, type NginxProxy } from './nginx-proxy';
import { peakRssBytes, resetPeakRss } from './process-memory';
import { benchBody, createBenchCards, proxyPlan, rotatingBody, type BenchBody, type BenchCard } from './proxy-requests';
import { checkProxyTargets, runIn, type ProxyRun, type TargetCheck } from './proxy-targets';
import type { Measurement, SuiteResult, Table } from './report';
import { inRounds, medianRound } from './rounds';
import { startFastifyProxy, startProxyDestination, startTokenbench, type TokenbenchInfo } from './servers';

export interface ProxyBenchOptions {
  connections: number[];
  durationSeconds: number;
  warmupSeconds: number;
  /** Runs per system and cell, interleaved; the median is reported (see rounds.ts). */
  rounds: number;
  /** Run Tokenbench under --cpu-prof and add its busiest functions to the report. */
  profileDir?: string;
  /** Only these body sizes (KB) and expression counts; undefined = the whole matrix. */
  bodiesKb?: number[];
  expressionCounts?: number[];
  /**
   * Tokens in the pool that extra cells (the largest expression count, each body size and connection count) name in
   * turn, another set in every request as real traffic does; 0: no such cells. Default 2,000.
   */
  tokenPool?: number;
  /**
   * Git refs whose builds are measured in turn with this build (their /proxy and pre-configured calls), each its own
   * process over its own vault, in place of direct and the peers; none: this build beside direct and the peers.
   */
  baselineRefs: string[];
  log(line: string): void;
}

const BODY_KB = [1, 100];
const EXPRESSION_COUNTS = [0, 1, 20];
const bodySize = (kb: number) => ({ label: `${kb} KB`, bytes: kb * 1024 });
const DIRECT = 'direct';
const TOKENBENCH = 'Tokenbench /proxy';
const PRECONFIGURED = 'Tokenbench pre-configured';
const FASTIFY = '@fastify/http-proxy';
const NGINX = 'nginx';
/** Before the first cell, every system (and the load generator) gets JIT-compiled and its sockets opened. */
const PRIME_SECONDS = 1.5;
const PRIME_CONNECTIONS = 10;

/** Who answers a run: its URL, the process whose CPU is metered, the processes whose memory is. */
interface System {
  name: string;
  url: string;
  cpuPid: number;
  memoryPids: number[];
  /** Whether the destination gets the body detokenized (else byte for byte as sent). */
  detokenizes: boolean;
  /** The request headers, when not the ephemeral proxy's (BT-API-KEY, BT-PROXY-URL). */
  headers?: Record<string, string>;
  compared?: ComparedCall;
}

/** In an A/B of builds, what a system is: a call (ephemeral or pre-configured) to a build, its case and its system. */
export interface ComparedCall {
  call: string;
  build: string;
}

/** A build's Tokenbench, set up for the proxy cells: its cards (and pool) and its pre-configured proxy's key. */
interface BenchService {
  build: ComparedBuild;
  server: ChildServer<TokenbenchInfo>;
  privateKey: string;
  proxyKey: string;
  cards: BenchCard[];
  pool: BenchCard[];
}

const mb = (bytes: number | null) => (bytes === null ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MB`);
const signedMs = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;
const pct = (ratio: number) => `${Math.round(ratio * 100)} %`;
const caseOf = ({ body, expressions, pool }: Pick<ProxyRun, 'body' | 'expressions' | 'pool'>) =>
  `${body}, ${expressions} expr${pool ? ` over ${pool.toLocaleString('en-US')} tokens` : ''}`;
const DEFAULT_TOKEN_POOL = 2_000;

/** The summed peak of `pids` (nginx: master + worker); null if any is unknown. */
function peakRss(pids: number[]): number | null {
  let sum = 0;
  for (const peak of pids.map(peakRssBytes)) {
    if (peak === null) return null;
    sum += peak;
  }
  return sum;
}

/** Per cell and proxy: throughput against direct and the Node peer, the latency it adds, its peak memory. */
function costTable(runs: ProxyRun[]): Table {
  const rows = runs
    .filter((r) => r.system !== DIRECT)
    .map((run) => {
      const direct = runIn(runs, run, DIRECT)!.load;
      const peer = run.system === FASTIFY ? undefined : runIn(runs, run, FASTIFY)?.load;
      const { requestsPerSecond: rps, latencyMs } = run.load;
      return [
        caseOf(run),
        run.connections,
        run.system,
        pct(rps / direct.requestsPerSecond),
        peer ? pct(rps / peer.requestsPerSecond) : '–',
        signedMs(latencyMs.p50 - direct.latencyMs.p50),
        signedMs(latencyMs.p99 - direct.latencyMs.p99),
        mb(run.peakRssBytes),
      ];
    });
  return {
    title: "Proxy cost per cell (added latency: the proxy's percentile minus direct's in the same cell)",
    columns: ['case', 'conns', 'proxy', 'req/s vs direct', `vs ${FASTIFY}`, 'added p50 ms', 'added p99 ms', 'peak RSS'],
    rows,
  };
}

/** A pre-configured proxy to the destination with no transforms: the same detokenizing call, by its key. */
async function createBenchProxy(url: string, managementKey: string, destination: string): Promise<string> {
  const res = await fetch(`${url}/proxies`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'bt-api-key': managementKey },
    body: JSON.stringify({ name: 'bench', destination_url: destination }),
  });
  if (res.status !== 201) throw new Error(`could not create the bench proxy: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** Each system's highest per-cell peak (for direct: the destination's). */
function peakTable(systems: System[], runs: ProxyRun[]): Table {
  const rows = systems.map(({ name }) => {
    const peaks = runs.filter((r) => r.system === name).map((r) => r.peakRssBytes);
    const highest = peaks.includes(null) ? null : Math.max(...(peaks as number[]));
    return [name === DIRECT ? `destination (${DIRECT} runs)` : name, mb(highest)];
  });
  return { title: 'Peak RSS of each server process over all its cells', columns: ['process', 'peak RSS'], rows };
}

function targetTable(targets: TargetCheck[]): Table {
  return {
    title: `Targets (issue 4): ${targets.filter((t) => t.met).length} of ${targets.length} met`,
    columns: ['target', 'cell', 'measured', 'result'],
    rows: targets.map((t) => [t.target, t.cell, t.measured, t.met ? 'met' : '**missed**']),
  };
}

const SERVE_BUILD = `the production build of the serve CLI, out/main/serve.js, started with ${ENGINE_NODE_FLAGS.join(' ')} as \`npm run serve\` starts it, on-disk vault, bootstrap private key, 20 card tokens card-01…card-20`;

/** What the systems are: direct and the peers beside this build, or the builds alone. */
const systemsNote = (nginx: NginxProxy | null, builds: ComparedBuild[]) =>
  builds.length > 1
    ? `Systems: the builds ${builds.map((b) => b.name).join(', ')}, each its own process: its own built CLI (another commit's built apart from its own tree by git-ref-build.ts, with this checkout's node_modules) started in the same way as ${SERVE_BUILD}, each over its own vault filled alike. Every case is sent to each build's ${TOKENBENCH} (ephemeral: BT-PROXY-URL) or ${PRECONFIGURED} (pre-configured: its proxy's BT-PROXY-KEY), the builds in turn; "vs baseline" = this row's req/s ÷ ${builds[0].name}'s for the same case and connections in this run. One destination (bare node:http that reads the whole body and answers {"len": <bytes>}) serves them all; direct and the peers are not run.`
    : 'Systems, each its own process: the destination (bare node:http that reads the whole body and answers ' +
      `{"len": <bytes>}); ${TOKENBENCH} (${SERVE_BUILD}); ${FASTIFY} (fastify 5 + @fastify/http-proxy 11 with its defaults: undici pool, keep-alive; its Node started with the same V8 settings as Tokenbench); ` +
    (nginx
      ? 'nginx (one worker, keep-alive upstream, proxy_http_version 1.1, bodies buffered in memory, access log off)'
      : `nginx: **skipped**, ${NGINX_BINARY} is not installed (Debian package nginx)`) +
    `. "${DIRECT}" sends the same load straight to the destination.`;

const notes = (options: ProxyBenchOptions, nginx: NginxProxy | null, builds: ComparedBuild[], peaksReset: boolean): string[] => [
  systemsNote(nginx, builds),
  'Every request is POST /proxy with a JSON body of exactly 1,024 or 102,400 bytes: a 12-digit request number (so ' +
    'no two bodies are alike and no body cache helps), a "cards" array of 0, 1 or 20 strings that are each one ' +
    "expression `{{ card-NN | json: '$.number' }}`, and order lines filling the rest. Every system gets the same " +
    'bytes and headers (BT-API-KEY, BT-PROXY-URL); to the peers and to direct the expressions are just bytes.',
  `Every answer, warm-up included, is checked: status 200 and len equal to what the destination must receive: the ` +
    `body as sent for ${DIRECT} and the peers, the detokenized body (each expression replaced by its 16-digit card ` +
    'number) for Tokenbench.',
  `Runs go cell by cell, ${options.rounds} round(s) per cell with all systems in turn within each round (every other round in the reverse order), so they see ` +
    'the same machine state; each figure is the round with the median req/s (its latency, CPU and targets too), with ' +
    'the lowest and highest round in brackets; wrong answers and peak RSS count over every round. Per run: ' +
    `${options.warmupSeconds} s unmeasured warm-up, then ${options.durationSeconds} s measured; before the ` +
    `first cell, ${PRIME_SECONDS} s per body size and system at ${PRIME_CONNECTIONS} connections, unmeasured. Load ` +
    "generator, destination and proxies share the machine's cores: ratios within a run mean more than absolute " +
    'figures.',
  "Latency: autocannon's time for every measured response (sub-millisecond), as p50 and p99. CPU column of the main " +
    "table: the proxy process (nginx: its worker), or the destination for direct; a proxy's µs/req leaves out the " +
    "destination's CPU.",
  "Peak RSS: VmHWM of the proxy's process(es) (nginx: master + worker) during the run, warm-up included" +
    (peaksReset
      ? ', reset before each run through /proc/<pid>/clear_refs.'
      : '; /proc/<pid>/clear_refs was not writable, so it is the peak since the process started.'),
  'Cells "over N tokens" send the largest expression count again, but each request names other tokens of a pool ' +
    'of N cards (p-00001…), in turn, as real traffic names another customer\'s tokens every time; they are shown, ' +
    'not judged against the targets, which are set on the cells above.',
  `${PRECONFIGURED} is the same Tokenbench process called by a pre-configured proxy's key (BT-PROXY-KEY, no ` +
    'transforms, destination_url the destination) instead of BT-PROXY-URL: the same detokenizing call, through the ' +
    'pipeline of pre-configured proxies, which must keep 90 % of the ephemeral throughput in each cell.',
  'Tokenbench also does what the peers do not: it authenticates the key, reads the tokens from the vault and records ' +
    'every proxied request in its SQLite history (the body as sent and the outbound body with values masked).',
  ...(options.profileDir
    ? ['This run was profiled (--cpu-prof on Tokenbench): its speeds are lower than an unprofiled run.']
    : []),
];

/**
 * Starts `build`'s Tokenbench on `dataDir` (a new vault) and sets it up for the cells: the cards and the pool `counts`
 * asks for, and a pre-configured proxy to the destination.
 */
async function startBenchService(
  build: ComparedBuild,
  dataDir: string,
  counts: { cards: number; pool: number },
  destination: string,
  running: { stop(): Promise<void> }[],
  log: (line: string) => void,
  cpuProfileDir?: string,
): Promise<BenchService> {
  const server = await startTokenbench(dataDir, { cli: build.cli, cpuProfileDir });
  running.push(server);
  const { url, privateKey, managementKey } = server.info;
  if (!privateKey || !managementKey) throw new Error(`${build.name}: Tokenbench printed no private or management key on its first start`);
  const cards = await createBenchCards(url, privateKey, counts.cards);
  if (counts.pool > 0) log(`Creating a pool of ${counts.pool} card tokens in ${build.name}…`);
  const pool = counts.pool > 0 ? await createBenchCards(url, privateKey, counts.pool, true) : [];
  const proxyKey = await createBenchProxy(url, managementKey, destination);
  return { build, server, privateKey, proxyKey, cards, pool };
}

/** A build's two calls as systems: the ephemeral /proxy and its pre-configured proxy, named after the build in an A/B. */
function tokenbenchSystems(service: BenchService, destination: string, ab: boolean): System[] {
  const { server, privateKey, proxyKey, build } = service;
  const base = { url: server.info.url, cpuPid: server.pid, memoryPids: [server.pid], detokenizes: true };
  const named = (system: string, call: string) =>
    ab ? { name: `${system}, ${build.name}`, compared: { call, build: build.name } } : { name: system };
  return [
    { ...base, ...named(TOKENBENCH, 'ephemeral'), headers: { 'content-type': 'application/json', 'bt-api-key': privateKey, 'bt-proxy-url': destination } },
    { ...base, ...named(PRECONFIGURED, 'pre-configured'), headers: { 'content-type': 'application/json', 'bt-api-key': privateKey, 'bt-proxy-key': proxyKey } },
  ];
}

/** The report's rows: in an A/B the case names the call and the system is the build, so each build's row sits by the baseline's. */
export function measurementsOf(runs: readonly ProxyRun[], systems: readonly { name: string; compared?: ComparedCall }[]): Measurement[] {
  return runs.map((r) => {
    const compared = systems.find((s) => s.name === r.system)?.compared;
    const cell = { connections: r.connections, load: r.load };
    return compared ? { case: `${caseOf(r)}, ${compared.call}`, system: compared.build, ...cell } : { case: caseOf(r), system: r.system, ...cell };
  });
}

/**
 * The proxy benchmark (issue 4): the same load straight to a destination, through Tokenbench's /proxy and through
 * peer proxies that do not detokenize, over body sizes × expression counts × connection counts, in one run. With
 * baseline refs, the builds' Tokenbench calls in turn instead.
 */
export async function runProxyBench(options: ProxyBenchOptions): Promise<SuiteResult> {
  const { log } = options;
  const builds = buildsToCompare(options.baselineRefs, log);
  const ab = builds.length > 1;
  const bodySizes = (options.bodiesKb ?? BODY_KB).map(bodySize);
  const expressionCounts = options.expressionCounts ?? EXPRESSION_COUNTS;
  const dataDirs: string[] = [];
  const profileDir = options.profileDir && join(options.profileDir, 'proxy');
  const running: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const server of running.splice(0).reverse()) await server.stop();
  };
  try {
    const destination = await startProxyDestination();
    running.push(destination);
    const poolCells = Math.max(...expressionCounts);
    const counts = {
      cards: Math.max(...EXPRESSION_COUNTS, ...expressionCounts),
      pool: poolCells > 0 ? (options.tokenPool ?? DEFAULT_TOKEN_POOL) : 0,
    };
    const services: BenchService[] = [];
    for (const [i, build] of builds.entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-proxy-bench-'));
      dataDirs.push(dataDir);
      const buildProfileDir = profileDir && (ab ? join(profileDir, String(i)) : profileDir);
      services.push(await startBenchService(build, dataDir, counts, destination.info.url, running, log, buildProfileDir));
    }
    // Every build's vault holds the same cards (same ids and numbers), so the bodies and lengths are the same for all.
    const { cards, pool } = services[0];

    const node = (name: string, server: ChildServer<{ url: string }>): System => ({
      name,
      url: server.info.url,
      cpuPid: server.pid,
      memoryPids: [server.pid],
      detokenizes: false,
    });
    const tokenbenchCalls = services.flatMap((service) => tokenbenchSystems(service, destination.info.url, ab));
    let nginx: NginxProxy | null = null;
    const systems: System[] = ab ? tokenbenchCalls : [node(DIRECT, destination), ...tokenbenchCalls];
    if (!ab) {
      const fastify = await startFastifyProxy(destination.info.url);
      running.push(fastify);
      systems.push(node(FASTIFY, fastify));
      nginx = await startNginx(new URL(destination.info.url));
      if (nginx) {
        running.push(nginx);
        const { url, workerPid, masterPid } = nginx;
        systems.push({ name: NGINX, url, cpuPid: workerPid, memoryPids: [masterPid, workerPid], detokenizes: false });
      } else log(`nginx skipped: ${NGINX_BINARY} is not installed`);
    }

    // What the peers and direct get: the ephemeral proxy's headers, which are just headers to them.
    const headers = tokenbenchCalls[0].headers!;
    let seq = 0;
    const nextSeq = () => seq++;
    /** `seconds`: [warm-up, measured]. */
    const load = (system: System, body: BenchBody, connections: number, seconds: [number, number]) =>
      runLoad(proxyPlan(body, system.detokenizes ? body.detokenizedBytes : body.sentBytes, nextSeq), {
        url: system.url,
        serverPid: system.cpuPid,
        headers: system.headers ?? headers,
        connections,
        warmupSeconds: seconds[0],
        durationSeconds: seconds[1],
      });

    log(`Priming every system (${PRIME_SECONDS} s per body size at ${PRIME_CONNECTIONS} connections)…`);
    for (const system of systems) {
      for (const { bytes } of bodySizes) {
        await load(system, benchBody(bytes, cards), PRIME_CONNECTIONS, [0, PRIME_SECONDS]);
      }
    }

    const runs: ProxyRun[] = [];
    let peaksReset = true;
    for (const size of bodySizes) {
      const cases: { expressions: number; body: BenchBody; pool?: number }[] = expressionCounts.map((expressions) => ({
        expressions,
        body: benchBody(size.bytes, cards.slice(0, expressions)),
      }));
      if (pool.length > 0) {
        cases.push({ expressions: poolCells, body: rotatingBody(size.bytes, cards.slice(0, poolCells), pool), pool: pool.length });
      }
      for (const { expressions, body, pool: poolUsed } of cases) {
        const label = caseOf({ body: size.label, expressions, pool: poolUsed });
        for (const connections of options.connections) {
          const rounds = await inRounds(options.rounds, systems, async (system, round) => {
            log(`${label}, ${connections} connection(s), round ${round} of ${options.rounds}: ${system.name}…`);
            for (const pid of system.memoryPids) peaksReset = resetPeakRss(pid) && peaksReset;
            const result = await load(system, body, connections, [options.warmupSeconds, options.durationSeconds]);
            return { result, peak: peakRss(system.memoryPids) };
          });
          for (const [i, system] of systems.entries()) {
            const peaks = rounds[i].map((r) => r.peak);
            const peakRssBytes = peaks.includes(null) ? null : Math.max(...(peaks as number[]));
            const median = medianRound(rounds[i].map((r) => r.result));
            runs.push({ body: size.label, expressions, connections, system: system.name, load: median, peakRssBytes, pool: poolUsed });
          }
        }
      }
    }
    // Tokenbench writes its CPU profile as it exits.
    await stopAll();
    // The targets are judged on this build's calls (the last build's).
    const [own, ownPreconfigured] = tokenbenchCalls.slice(-2);
    const targets = checkProxyTargets(runs, { direct: DIRECT, tokenbench: own.name, peer: FASTIFY, preconfigured: ownPreconfigured.name });
    const profiles = (i: number) => summarizeCpuProfiles(ab ? join(profileDir!, String(i)) : profileDir!, ab ? `proxy cells, ${builds[i].name}` : 'proxy cells');

    return {
      suite: 'proxy',
      title: ab
        ? `Ephemeral and pre-configured proxy: ${[...builds].reverse().map((b) => b.name).join(' against ')}`
        : `Ephemeral and pre-configured proxy: the same load to ${systems.map((s) => s.name).join(', ')}`,
      baselineSystem: ab ? builds[0].name : DIRECT,
      measurements: measurementsOf(runs, systems),
      tables: [
        ...(ab ? [] : [costTable(runs)]),
        peakTable(systems, runs),
        targetTable(targets),
        ...(profileDir ? builds.flatMap((_, i) => profiles(i)) : []),
      ],
      notes: notes(options, nginx, builds, peaksReset),
      data: {
        targets,
        peakRssBytes: runs.map(({ load: _load, ...cell }) => cell),
      },
    };
  } finally {
    await stopAll();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}
