/**
 * `npm run bench`: runs the benchmark suites, writes bench/results/{bench-<time>,latest}.{json,md} and prints the
 * markdown. A script, not a test: it measures, and fails (exit 1) only when a response was wrong, not when slow.
 *
 *   --suite NAME        run only this suite (repeatable; default: all: vault, proxy, code-runtime, proxy-files, tokens-page, history-page, open-requests, flags, startup, start, reactors, webhooks, events-cost, replicas)
 *   --connections 1,10  connection counts         (default per suite: vault 1,10; proxy 1,10,50; events-cost 1,10; replicas 10,40)
 *   --duration S        measured seconds per run  (default per suite: vault 6; proxy 3)
 *   --warmup S          unmeasured seconds first  (default per suite: vault 2; proxy 1, after priming)
 *   --token-duration S  events-cost: measured seconds of the token read and create runs (default: --duration)
 *   --rounds N          runs per system and cell, interleaved; the median is reported (default 3)
 *   --tokens N          tokens in the vault, tokens-page, events-cost and replicas suites (100000)
 *   --entries N         requests seeded into the history-page suite's history (10000, what the engine keeps)
 *   --bodies 1,100      proxy body sizes in KB      (default 1,100)
 *   --expressions 0,20  proxy expression counts     (default 0,1,20)
 *   --pool N            proxy: extra cells whose expressions name tokens of an N-token pool in turn (2000; 0: none)
 *   --profile           CPU-profile the service
 *   --baseline REF      vault, proxy, startup, flags, start: also build this git ref (e.g. main) apart and measure the
 *                       builds in turn (repeatable; start measures beside HEAD~1 when none is given; refused with a
 *                       named suite that does not compare builds)
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './child-process';
import { machineInfo } from './machine';
import { buildReport, writeReport, type SuiteResult } from './report';
import { selectSuites, type SuiteTraits } from './suite-selection';

const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

interface RunSettings {
  connections: number[];
  durationSeconds: number;
  warmupSeconds: number;
}

interface CommonSettings extends RunSettings {
  rounds: number;
  profileDir?: string;
  /** Proxy cells to run; undefined = all (for profiling one cell). */
  bodiesKb?: number[];
  expressionCounts?: number[];
  tokenPool?: number;
  /** Requests seeded into the history-page suite's history. */
  entries: number;
  /**
   * events-cost: the token cells' measured seconds, longer than the proxy cells' so that their rounds average out a
   * busy machine's spread while the 20-expression proxy cell's backlog (drained after each run) stays bounded.
   */
  tokenDurationSeconds?: number;
  /** The startup suite's comparisons: git refs built apart. */
  baselineRefs: string[];
  log(line: string): void;
}

interface Suite extends SuiteTraits {
  /** What a run of this suite uses unless the command line says otherwise (the proxy matrix must stay short). */
  defaults: RunSettings;
  run(settings: CommonSettings, tokens: number): Promise<SuiteResult>;
  /** The settings as the report states them, when the load settings do not apply. */
  describe?(settings: CommonSettings): string;
}

/**
 * One entry per suite; a suite owns its servers and returns its scenario table. Each suite's module loads only when it
 * runs, so that a bad option is refused without first loading every suite's engine and browser code.
 */
const SUITES: Record<string, Suite> = {
  vault: {
    defaults: { connections: [1, 10], durationSeconds: 6, warmupSeconds: 2 },
    comparesBuilds: true,
    run: async (settings, tokens) => (await import('./vault-bench')).runVaultBench({ ...settings, tokens }),
  },
  proxy: {
    defaults: { connections: [1, 10, 50], durationSeconds: 3, warmupSeconds: 1 },
    comparesBuilds: true,
    run: async (settings) => (await import('./proxy-bench')).runProxyBench(settings),
  },
  // Calls one at a time, in rounds of a fixed count: connections and durations do not apply.
  'code-runtime': {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    run: async (settings) => (await import('./code-runtime-bench')).runCodeRuntimeBench({ rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds }) => `${rounds} round(s) of 2,000 calls of a one-line transform, through the runtime and directly, in turn`,
  },
  // Saves one at a time, each followed by requests until it is live: connections and durations do not apply.
  'proxy-files': {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    run: async (settings) => (await import('./proxy-files-bench')).runProxyFilesBench({ rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds }) => `${rounds} round(s) of 20 saves of a proxy's .js file`,
  },
  // A browser against the page: rounds are its visits and searches; connections and durations do not apply.
  'tokens-page': {
    defaults: { connections: [1], durationSeconds: 5, warmupSeconds: 0 },
    run: async (settings, tokens) => (await import('./tokens-page-bench')).runTokensPageBench({ tokens, rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds }) => `${rounds} visit(s) of the page and run(s) of each search, then one 5 s scroll`,
  },
  'history-page': {
    defaults: { connections: [1], durationSeconds: 5, warmupSeconds: 0 },
    run: async (settings) => (await import('./history-page-bench')).runHistoryPageBench({ entries: settings.entries, rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds, entries }) => `${entries} requests seeded; ${rounds} visit(s) of the page and run(s) of each filter, then one 5 s scroll`,
  },
  'open-requests': {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    run: async (settings) => (await import('./open-requests-bench')).runOpenRequestsBench({ rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds }) => `${rounds} round(s) of switching through every open request and of a burst typed in the body`,
  },
  flags: {
    // A browser session rather than a load: timed keystrokes, not seconds at a connection count.
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    comparesBuilds: true,
    run: async (settings) => (await import('./flag-bench')).runFlagBench({ rounds: settings.rounds, baselineRefs: settings.baselineRefs, log: settings.log }),
    describe: ({ rounds, baselineRefs }) =>
      `${rounds} round(s) of typing bursts and checkRequest calls${baselineRefs.length > 0 ? `, in turn with the builds of ${baselineRefs.join(', ')}` : ''}`,
  },
  startup: {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    comparesBuilds: true,
    run: async (settings) => (await import('./startup-bench')).runStartupBench({ rounds: settings.rounds, baselineRefs: settings.baselineRefs, log: settings.log }),
    describe: ({ rounds, baselineRefs }) =>
      `${rounds} cold load(s) and reload(s) of each page${baselineRefs.length > 0 ? `, in turn with the builds of ${baselineRefs.join(', ')}` : ''}`,
  },
  // Processes started and stopped, not a load: rounds are starts of each kind per build.
  start: {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    comparesBuilds: true,
    run: async (settings) => (await import('./start-bench')).runStartBench({ rounds: settings.rounds, baselineRefs: settings.baselineRefs, log: settings.log }),
    describe: ({ rounds, baselineRefs }) =>
      `${rounds} start(s) of each kind per build, build excluded, in turn with the build of ${baselineRefs.length > 0 ? baselineRefs.join(', ') : 'HEAD~1'}`,
  },
  // Calls one at a time, in rounds of a fixed count: connections and durations do not apply.
  reactors: {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    run: async (settings) => (await import('./reactor-bench')).runReactorBench({ rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds }) => `${rounds} round(s) of 2,000 reacts of a trivial reactor and 2,000 token reads, in turn`,
  },
  // Events one at a time, in rounds of a fixed count: connections and durations do not apply.
  webhooks: {
    defaults: { connections: [1], durationSeconds: 0, warmupSeconds: 0 },
    run: async (settings) => (await import('./webhook-bench')).runWebhookBench({ rounds: settings.rounds, log: settings.log }),
    describe: ({ rounds }) => `${rounds} round(s) of 500 events raised one at a time, each to its signed delivery`,
  },
  // The token and proxy cells again, side by side without and with a webhook on every event.
  'events-cost': {
    defaults: { connections: [1, 10], durationSeconds: 3, warmupSeconds: 1 },
    run: async (settings, tokens) => (await import('./events-cost-bench')).runEventsCostBench({ ...settings, tokens }),
    describe: ({ rounds, durationSeconds, tokenDurationSeconds = durationSeconds, warmupSeconds, connections }) =>
      `${rounds} round(s) of ${tokenDurationSeconds} s measured (token cells) or ${durationSeconds} s (proxy cells) + ${warmupSeconds} s warm-up per system and cell, connections ${connections.join('/')}`,
  },
  // SQLite beside PostgreSQL with one and two serve replicas; it starts its own PostgreSQL cluster.
  replicas: {
    defaults: { connections: [10, 40], durationSeconds: 3, warmupSeconds: 1 },
    run: async (settings, tokens) => (await import('./replicas-bench')).runReplicasBench({ ...settings, tokens }),
  },
};

/** A number of seconds; a warm-up may be 0 (skipped), a measured run may not. */
function seconds(name: string, text: string, zeroAllowed: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (n === 0 && !zeroAllowed)) {
    throw new Error(`--${name} takes a number of seconds ${zeroAllowed ? '≥ 0' : '> 0'}, got "${text}"`);
  }
  return n;
}

/** A count: `--rounds 0.4` or `--tokens 1e3.5` is refused here rather than rounded into a run that measures nothing. */
function integer(name: string, text: string, min: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min) throw new Error(`--${name} takes integers ≥ ${min}, got "${text}"`);
  return n;
}

const list = (name: string, text: string | undefined, min: number) => text?.split(',').map((item) => integer(name, item, min));

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', multiple: true },
      connections: { type: 'string' },
      duration: { type: 'string' },
      'token-duration': { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string', default: '3' },
      tokens: { type: 'string', default: '100000' },
      entries: { type: 'string', default: '10000' },
      profile: { type: 'boolean', default: false },
      bodies: { type: 'string' },
      expressions: { type: 'string' },
      pool: { type: 'string' },
      baseline: { type: 'string', multiple: true },
    },
  });
  const baselineRefs = values.baseline ?? [];
  const suites = selectSuites(values.suite, SUITES, baselineRefs);

  const machine = machineInfo();
  const overrides: Partial<RunSettings> = {
    ...(values.connections && { connections: list('connections', values.connections, 1) }),
    ...(values.duration && { durationSeconds: seconds('duration', values.duration, false) }),
    ...(values.warmup && { warmupSeconds: seconds('warmup', values.warmup, true) }),
  };
  const profileDir = values.profile ? join(RESULTS_DIR, `profile-${machine.date.replace(/[:.]/g, '-')}`) : undefined;
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const tokens = integer('tokens', values.tokens, 1);
  const rounds = integer('rounds', values.rounds, 1);
  const entries = integer('entries', values.entries, 10);
  const tokenDuration = values['token-duration'];
  const tokenDurationSeconds = tokenDuration === undefined ? undefined : seconds('token-duration', tokenDuration, false);
  const cells = {
    bodiesKb: list('bodies', values.bodies, 1),
    expressionCounts: list('expressions', values.expressions, 0),
    tokenPool: values.pool === undefined ? undefined : integer('pool', values.pool, 0),
  };

  const results: SuiteResult[] = [];
  const runSettings: Record<string, string> = {};
  for (const name of suites) {
    const settings: CommonSettings = { ...SUITES[name].defaults, ...overrides, ...cells, rounds, entries, tokenDurationSeconds, baselineRefs: SUITES[name].comparesBuilds ? baselineRefs : [], profileDir, log };
    const { durationSeconds, warmupSeconds, connections } = settings;
    runSettings[name] =
      SUITES[name].describe?.(settings) ??
      `${rounds} round(s) of ${durationSeconds} s measured + ${warmupSeconds} s warm-up per system and cell, connections ${connections.join('/')}`;
    results.push(await SUITES[name].run(settings, tokens));
  }

  const shown = { ...runSettings, ...(['vault', 'tokens-page', 'events-cost', 'replicas'].some((s) => suites.includes(s)) && { tokens }), profiled: values.profile };
  const report = buildReport(machine, shown, results);
  process.stdout.write(writeReport(report, RESULTS_DIR));
  log(`Results in ${RESULTS_DIR}/latest.{json,md}`);
  const failed = report.suites.flatMap((s) => s.rows).filter((r) => !r.clean);
  for (const row of failed) log(`WRONG ANSWERS: ${row.case} / ${row.system} / ${row.connections} connection(s)`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`bench: ${(error as Error).stack ?? error}\n`);
    process.exit(2);
  },
);
