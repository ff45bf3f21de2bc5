import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINE_NODE_FLAGS } from '../../electron/cli/engine-node-flags';
import type { BaselineReplies, FixedReply } from './baseline-server';
import type { ChildServer } from './child-process';
import { summarizeCpuProfiles } from './cpu-profile';
import { runLoad, type RequestPlan } from './load';
import type { Measurement, SuiteResult, Table, Target } from './report';
import { inRounds, medianRound } from './rounds';
import { startBaseline, startTokenbench, type TokenbenchInfo } from './servers';
import { expectReply } from './vault-client';
import { cardRequest } from './vault-data';
import { measureVault, type VaultDiskUsage } from './vault-disk';
import { fillVault } from './vault-fill';
import { againstFixedReply, createPlan, readPlan } from './vault-plans';

export interface VaultBenchOptions {
  tokens: number;
  connections: number[];
  durationSeconds: number;
  warmupSeconds: number;
  /** Runs per system and cell, interleaved; the median is reported (see rounds.ts). */
  rounds: number;
  /** Run the service under --cpu-prof, one profile per case, and add its busiest functions to the report. */
  profileDir?: string;
  log(line: string): void;
}

const TOKENBENCH = 'Tokenbench';
const BASELINE = 'node:http, fixed JSON';
/** The targets at 10 connections on the 2-core build machines (docs/performance.md, Targets). */
const TARGETS: Record<string, Target> = { read: { minRequestsPerSecond: 8_000 }, create: { minRequestsPerSecond: 3_000 } };
const TARGET_CONNECTIONS = 10;

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const perToken = (bytes: number, tokens: number) => `${Math.round(bytes / tokens)} B`;

function diskRow(moment: string, disk: VaultDiskUsage): (string | number)[] {
  return [
    moment,
    disk.tokens.toLocaleString('en-US'),
    `${mb(disk.fileBytes)}${disk.checkpointed ? '' : ' (checkpoint busy)'}`,
    perToken(disk.fileBytes, disk.tokens),
    perToken(disk.tokenTableBytes, disk.tokens),
    mb(disk.historyBytes),
  ];
}

const notes = (options: VaultBenchOptions, fillSeconds: number, replies: Required<BaselineReplies>) => [
  `Fill: ${options.tokens.toLocaleString('en-US')} tokens in ${fillSeconds.toFixed(1)} s through POST /tokenize (100 per call, 3 calls in flight) = ${Math.round(options.tokens / fillSeconds).toLocaleString('en-US')} tokens/s.`,
  `read = GET /tokens/{id} over ids drawn at random from the fill; create = POST /tokens with a new Luhn-valid card number each time. Key: the bootstrap private application (bare token:* permissions, so data comes back masked). Each case gets a fresh service process on the same vault: the production build of the serve CLI (out/main/serve.js, built by \`npm run bench\`, started with ${ENGINE_NODE_FLAGS.join(' ')} as \`npm run serve\` starts it), as the desktop app ships it.`,
  "Every response is checked in autocannon's onResponse hook: status (200/201), JSON body, the id asked for (reads), the type, and `data` equal to the expected mask (card number XXXXXXXXXXXX1234, SSN XXX-XX-1234, `token` tokens redacted); creates also `_extras.deduplicated = false`. The baseline's fixed reply is parsed and its id compared, so the load generator does the same work for both.",
  `The baseline is a bare node:http server in its own process answering the service's own read and create replies (${replies.GET.body.length} and ${replies.POST.body.length} bytes); "vs baseline" = Tokenbench req/s ÷ baseline req/s for the same case and connections in this run. Load generator, service and baseline share the machine's cores.`,
  `Each cell ran ${options.rounds} round(s), baseline and service in turn, ${options.warmupSeconds} s unmeasured warm-up + ${options.durationSeconds} s measured each; the table shows the round with the median req/s (its latency and CPU too) and, in brackets, the lowest and highest round. Wrong answers count from every round.`,
  'The file column is everything the service keeps: tokenbench.sqlite with its WAL, history.sqlite with its journal; the history holds the last 10,000 requests, and "file per token" includes it.',
  ...(options.profileDir
    ? ['This run was profiled (--cpu-prof on the service during each case): its speeds are lower than an unprofiled run.']
    : []),
];

/**
 * The vault benchmark: fill the vault, then per case and connection count, rounds of the baseline and the service in
 * turn (so both see the same machine state), and the vault's size on disk before and after.
 */
export async function runVaultBench(options: VaultBenchOptions): Promise<SuiteResult> {
  const { log } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-bench-'));
  let service: ChildServer<TokenbenchInfo> | undefined;
  let baseline: ChildServer<{ url: string }> | undefined;
  try {
    service = await startTokenbench(dataDir);
    const { url, privateKey } = service.info;
    if (!privateKey) throw new Error('The service printed no private key on its first start');

    log(`Filling the vault with ${options.tokens.toLocaleString('en-US')} tokens through POST /tokenize…`);
    const fillStarted = performance.now();
    const tokens = await fillVault(url, privateKey, options.tokens);
    const fillSeconds = (performance.now() - fillStarted) / 1000;

    // The baseline answers what the service answers: a real masked card read and a real create reply.
    // Card numbers go on from the fill's, so every create is a new card.
    let seq = options.tokens;
    const nextSeq = () => seq++;
    const card = tokens.find((t) => t.type === 'card')!;
    const replies: Required<BaselineReplies> = {
      GET: { status: 200, body: await expectReply(200, url, privateKey, 'GET', `/tokens/${card.id}`) },
      POST: { status: 201, body: await expectReply(201, url, privateKey, 'POST', '/tokens', cardRequest(nextSeq()).request) },
    };
    await service.stop();
    const afterFill = measureVault(dataDir);
    baseline = await startBaseline(replies);

    const cases: { name: 'read' | 'create'; plan: RequestPlan; reply: FixedReply }[] = [
      { name: 'read', plan: readPlan(tokens), reply: replies.GET },
      { name: 'create', plan: createPlan(nextSeq), reply: replies.POST },
    ];
    const measurements: Measurement[] = [];
    const tables: Table[] = [];
    const headers = { 'content-type': 'application/json', 'bt-api-key': privateKey };
    const { durationSeconds, warmupSeconds } = options;
    for (const { name, plan, reply } of cases) {
      const profileDir = options.profileDir && join(options.profileDir, name);
      service = await startTokenbench(dataDir, { cpuProfileDir: profileDir });
      for (const connections of options.connections) {
        const runs = [
          { system: BASELINE, server: baseline, plan: againstFixedReply(plan, reply) },
          { system: TOKENBENCH, server: service, plan },
        ];
        const rounds = await inRounds(options.rounds, runs, (run, round) => {
          log(`${name}, ${connections} connection(s), round ${round} of ${options.rounds}: ${run.system}…`);
          const endpoint = { url: run.server.info.url, serverPid: run.server.pid };
          return runLoad(run.plan, { ...endpoint, connections, headers, durationSeconds, warmupSeconds });
        });
        for (const [i, run] of runs.entries()) {
          const target = run.system === TOKENBENCH && connections === TARGET_CONNECTIONS ? TARGETS[name] : undefined;
          measurements.push({ case: name, system: run.system, connections, load: medianRound(rounds[i]), target });
        }
      }
      await service.stop();
      if (profileDir) tables.push(...summarizeCpuProfiles(profileDir, name));
    }
    const afterRun = measureVault(dataDir);

    tables.unshift({
      title: 'Vault on disk (tokenbench.sqlite with its WAL after a TRUNCATE checkpoint, history.sqlite with its journal)',
      columns: ['when', 'tokens', 'file', 'file per token', 'token tables per token', 'request history'],
      rows: [diskRow('after the fill', afterFill), diskRow('after the run', afterRun)],
    });
    return {
      suite: 'vault',
      title: `Vault over HTTP, ${options.tokens.toLocaleString('en-US')} tokens (card, token, SSN) in the vault`,
      baselineSystem: BASELINE,
      measurements,
      tables,
      notes: notes(options, fillSeconds, replies),
      data: { fillSeconds, afterFill, afterRun },
    };
  } finally {
    await baseline?.stop();
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
