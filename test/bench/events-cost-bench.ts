/**
 * What webhooks cost the token and proxy benchmarks (issue 41): the same cells against two services on copies of one
 * vault, one with no webhook and one with a webhook subscribed to every event type (token.read included) delivering to
 * a receiver on loopback that answers 200 at once. The target: the subscribed service keeps 90 % of the other's req/s.
 */
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import type { ChildServer } from './child-process';
import { summarizeCpuProfiles } from './cpu-profile';
import { runLoad, type LoadResult, type RequestPlan } from './load';
import { benchBody, createBenchCards, proxyPlan } from './proxy-requests';
import type { Measurement, SuiteResult, Table } from './report';
import { inRounds, medianRound } from './rounds';
import { startProxyDestination, startTokenbench, type TokenbenchInfo } from './servers';
import { apiCall, expectReply } from './vault-client';
import type { VaultBenchOptions } from './vault-bench';
import { fillVault } from './vault-fill';
import { createPlan, readPlan } from './vault-plans';

/**
 * The vault suite's settings: tokens in the vault, the load, and a profile of the subscribed service when asked; the
 * token cells may be measured longer than the proxy cells (run-benchmarks.ts, --token-duration).
 */
export type EventsCostBenchOptions = VaultBenchOptions & { tokenDurationSeconds?: number };

const WITHOUT = 'no webhook';
const WITH = 'webhook on every event';
const MIN_RATIO = 0.9;
const CARDS = 20;
const PROXY_BODY_BYTES = 1024;
/**
 * How long a subscribed run's draining backlog may stay the same size before the run is called stalled: a backlog that
 * shrinks is waited for however large (a longer run leaves a larger one), since it would slow the next run.
 */
const DRAIN_STALL_MS = 30_000;
/** How each service is warmed before the first cell: reads at random over its vault, then creates. */
const WARM_UP_CONNECTIONS = 10;
const WARM_UP_READ_SECONDS = 5;
const WARM_UP_CREATE_SECONDS = 2;
/** Checkpoints tried, 100 ms apart, before a run starts without one (and says so). */
const CHECKPOINT_TRIES = 20;

/** One service: its process and its vault's file (for the backlog). */
interface System {
  name: string;
  server: ChildServer<TokenbenchInfo>;
  databaseFile: string;
}

interface Backlog {
  /** Events raised and not yet handed to the webhook, plus deliveries not yet answered, as the run ended. */
  atEnd: number;
  /** Seconds until both were 0, after the run. */
  drainSeconds: number;
}

/** The backlog in the service's vault, read on a second connection (WAL lets the service go on writing). */
function backlogOf(databaseFile: string): number {
  const db = new Database(databaseFile, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    // A batch of reads is one outbox row, an event per token id and type in its `reads.tokens`.
    const outboxEvents =
      count("SELECT count(*) AS n FROM event_outbox WHERE json_type(event, '$.reads') IS NULL") +
      count("SELECT coalesce(sum(json_array_length(event, '$.reads.tokens')), 0) / 2 AS n FROM event_outbox WHERE json_type(event, '$.reads') = 'object'");
    return outboxEvents + count("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'");
  } finally {
    db.close();
  }
}

/** The backlog as the run ended, then waits until the service has delivered it. */
async function drain(databaseFile: string): Promise<Backlog> {
  const started = performance.now();
  const atEnd = backlogOf(databaseFile);
  let least = atEnd;
  let shrunkAt = started;
  for (let left = atEnd; left > 0; left = backlogOf(databaseFile)) {
    if (left < least) [least, shrunkAt] = [left, performance.now()];
    if (performance.now() - shrunkAt > DRAIN_STALL_MS) throw new Error(`events-cost: ${left} deliveries still pending, none delivered for ${DRAIN_STALL_MS / 1000} s`);
    await sleep(100);
  }
  return { atEnd, drainSeconds: (performance.now() - started) / 1000 };
}

/**
 * Folds the vault's write-ahead log into its file and empties it, from a second connection while the service is idle,
 * so that every run starts from the same state: a drained backlog leaves its deliveries' writes in the log, and the
 * next run on that service would pay for them (a checkpoint, reads past them) instead of only for its own requests.
 * Answers false when the service kept the log busy throughout.
 */
async function checkpoint(databaseFile: string): Promise<boolean> {
  const db = new Database(databaseFile, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    for (let tries = 0; tries < CHECKPOINT_TRIES; tries++) {
      const [{ busy }] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (busy === 0) return true;
      await sleep(100);
    }
    return false;
  } finally {
    db.close();
  }
}

/** A webhook on every event type the service offers, to `receiver`. */
async function subscribeToEverything(url: string, managementKey: string, receiver: string): Promise<number> {
  const types = JSON.parse(await expectReply(200, url, managementKey, 'GET', '/webhooks/event-types')) as string[];
  const created = await apiCall(url, managementKey, 'POST', '/webhooks', { name: 'events-cost bench', url: receiver, events: types });
  if (created.status !== 201) throw new Error(`could not create the bench webhook: ${created.status} ${created.text}`);
  return types.length;
}

const backlogText = (b: Backlog) => `${b.atEnd.toLocaleString('en-US')} (${b.drainSeconds.toFixed(1)} s)`;

/**
 * Per cell, rounds of both services in turn; after each subscribed run, the backlog it left, drained before the next
 * run so neither service measures the other's deliveries.
 */
export async function runEventsCostBench(options: EventsCostBenchOptions): Promise<SuiteResult> {
  const { log, durationSeconds, warmupSeconds } = options;
  const tokenSeconds = options.tokenDurationSeconds ?? durationSeconds;
  const dataDirs = [WITHOUT, WITH].map(() => mkdtempSync(join(tmpdir(), 'tokenbench-events-cost-')));
  const running: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const server of running.splice(0).reverse()) await server.stop();
  };
  try {
    const first = await startTokenbench(dataDirs[0]);
    const { privateKey, managementKey } = first.info;
    if (!privateKey || !managementKey) throw new Error('The service printed no keys on its first start');
    const cards = await createBenchCards(first.info.url, privateKey, CARDS);
    log(`Filling a vault with ${options.tokens.toLocaleString('en-US')} tokens, then copying it…`);
    const tokens = await fillVault(first.info.url, privateKey, options.tokens);
    await first.stop();
    cpSync(dataDirs[0], dataDirs[1], { recursive: true });

    const destination = await startProxyDestination();
    running.push(destination);
    const receiver = await startProxyDestination();
    running.push(receiver);
    const systems: System[] = [];
    for (const [i, name] of [WITHOUT, WITH].entries()) {
      const profileDir = name === WITH ? options.profileDir && join(options.profileDir, 'events-cost') : undefined;
      const server = await startTokenbench(dataDirs[i], { cpuProfileDir: profileDir });
      running.push(server);
      systems.push({ name, server, databaseFile: join(dataDirs[i], DATABASE_FILE) });
    }
    let seq = options.tokens + CARDS + 1;
    const nextSeq = () => seq++;
    const tokenHeaders = { 'content-type': 'application/json', 'bt-api-key': privateKey };
    // Fresh processes over a cold cache: the first cell's first rounds would measure them warming up, each at its own
    // pace, so both read and create for a while before the webhook exists and anything is measured.
    for (const { server } of systems) {
      const warming = { url: server.info.url, serverPid: server.pid, headers: tokenHeaders, connections: WARM_UP_CONNECTIONS, warmupSeconds: 0 };
      await runLoad(readPlan(tokens), { ...warming, durationSeconds: WARM_UP_READ_SECONDS });
      await runLoad(createPlan(nextSeq), { ...warming, durationSeconds: WARM_UP_CREATE_SECONDS });
    }
    const eventTypes = await subscribeToEverything(systems[1].server.info.url, managementKey, receiver.info.url);

    const proxyHeaders = { ...tokenHeaders, 'bt-proxy-url': destination.info.url };
    const proxyCase = (expressions: number) => {
      const body = benchBody(PROXY_BODY_BYTES, cards.slice(0, expressions));
      return { name: `proxy 1 KB, ${expressions} expr`, plan: proxyPlan(body, body.detokenizedBytes, nextSeq), headers: proxyHeaders, seconds: durationSeconds };
    };
    const cases: { name: string; plan: RequestPlan; headers: Record<string, string>; seconds: number }[] = [
      { name: 'token read', plan: readPlan(tokens), headers: tokenHeaders, seconds: tokenSeconds },
      { name: 'token create', plan: createPlan(nextSeq), headers: tokenHeaders, seconds: tokenSeconds },
      proxyCase(0),
      proxyCase(CARDS),
    ];

    const measurements: Measurement[] = [];
    let unsettled = 0;
    const backlogRows: (string | number)[][] = [];
    for (const { name, plan, headers, seconds } of cases) {
      for (const connections of options.connections) {
        const rounds = await inRounds(options.rounds, systems, async (system, round) => {
          log(`${name}, ${connections} connection(s), round ${round} of ${options.rounds}: ${system.name}…`);
          const { url } = system.server.info;
          if (!(await checkpoint(system.databaseFile))) {
            unsettled++;
            log(`${system.name}: its write-ahead log stayed busy; this run starts without a checkpoint`);
          }
          const load = await runLoad(plan, { url, serverPid: system.server.pid, headers, connections, durationSeconds: seconds, warmupSeconds });
          return { load, backlog: system.name === WITH ? await drain(system.databaseFile) : undefined };
        });
        const medians: LoadResult[] = rounds.map((r) => medianRound(r.map(({ load }) => load)));
        for (const [i, system] of systems.entries()) {
          const target = system.name === WITH ? { minRatio: MIN_RATIO } : undefined;
          measurements.push({ case: name, system: system.name, connections, load: medians[i], target });
        }
        const subscribed = rounds[1];
        const median = subscribed.find(({ load }) => load.requestsPerSecond === medians[1].requestsPerSecond)!;
        backlogRows.push([name, connections, backlogText(median.backlog!), subscribed.map(({ backlog }) => backlogText(backlog!)).join(', ')]);
      }
    }
    // The service writes its CPU profile as it exits.
    await stopAll();

    const tables: Table[] = [
      {
        title: 'Backlog of the subscribed service as each measured run ended: events not yet handed over + deliveries pending (seconds to deliver them all)',
        columns: ['case', 'conns', 'median round', 'every round, in order'],
        rows: backlogRows,
      },
      ...(options.profileDir ? summarizeCpuProfiles(join(options.profileDir, 'events-cost'), 'subscribed service') : []),
    ];
    return {
      suite: 'events-cost',
      title: `Webhooks' cost: the token and proxy cells without and with a webhook on every event, ${options.tokens.toLocaleString('en-US')} tokens`,
      baselineSystem: WITHOUT,
      measurements,
      tables,
      notes: [
        `Two services (the built serve CLI, as the vault and proxy suites start it) on copies of one vault filled with ${options.tokens.toLocaleString('en-US')} tokens and ${CARDS} cards; "${WITH}" has one webhook subscribed to all ${eventTypes} event types, token.read included, delivering to a bare node:http receiver in its own process on loopback that answers 200 at once. "vs baseline" is its req/s ÷ the other's in the same cell, the median of the rounds' ratios; the target is ≥ ${MIN_RATIO * 100} %.`,
        `Before the first cell and before the webhook existed, each service read at random over its vault for ${WARM_UP_READ_SECONDS} s and created tokens for ${WARM_UP_CREATE_SECONDS} s, at ${WARM_UP_CONNECTIONS} connections (unmeasured), so that no round measures a cold process.`,
        'token read and token create are the vault suite\'s cases (GET /tokens/{id}, POST /tokens; the same checks); the proxy cells are the proxy suite\'s ephemeral POST /proxy with a 1 KB body holding 0 or 20 expressions, to a destination in its own process.',
        `Each cell ran ${options.rounds} round(s), the two services in turn (every other round reversed), ${warmupSeconds} s unmeasured warm-up + ${tokenSeconds === durationSeconds ? durationSeconds : `${tokenSeconds} (token cells) or ${durationSeconds} (proxy cells)`} s measured each; after each subscribed run the bench waited for its backlog to be delivered, and before each run it checkpointed that service's write-ahead log from a second connection (${unsettled === 0 ? 'every run' : `all but ${unsettled} run(s), whose log stayed busy`}), so no run pays for another's deliveries.`,
        ...(options.profileDir ? ['This run was profiled (--cpu-prof on the subscribed service): its speeds are lower than an unprofiled run.'] : []),
      ],
    };
  } finally {
    await stopAll();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}
