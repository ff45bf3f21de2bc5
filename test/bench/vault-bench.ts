import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINE_NODE_FLAGS } from '../../electron/cli/engine-node-flags';
import type { BaselineReplies, FixedReply } from './baseline-server';
import type { ChildServer } from './child-process';
import { summarizeCpuProfiles } from './cpu-profile';
import { buildsToCompare, type ComparedBuild } from './git-ref-build';
import { runLoad, type RequestPlan } from './load';
import type { Measurement, SuiteResult, Table, Target } from './report';
import { inRounds, medianRound } from './rounds';
import { startBaseline, startTokenbench, type TokenbenchInfo } from './servers';
import { expectReply } from './vault-client';
import { cardRequest } from './vault-data';
import { measureVault, type VaultDiskUsage } from './vault-disk';
import { fillVault, type FilledToken } from './vault-fill';
import { againstFixedReply, createPlan, readPlan } from './vault-plans';

export interface VaultBenchOptions {
  tokens: number;
  connections: number[];
  durationSeconds: number;
  warmupSeconds: number;
  /** Runs per system and cell, interleaved; the median is reported (see rounds.ts). */
  rounds: number;
  /**
   * Git refs whose builds are measured in turn with this build, each over its own vault filled alike, in place of the
   * node:http baseline; none: this build beside that baseline.
   */
  baselineRefs: string[];
  /** Run the service under --cpu-prof, one profile per case, and add its busiest functions to the report. */
  profileDir?: string;
  log(line: string): void;
}

const TOKENBENCH = 'Tokenbench';
const BASELINE = 'node:http, fixed JSON';
/** The targets at 10 connections on the 2-core build machines (docs/performance.md, Targets). */
const TARGETS: Record<string, Target> = { read: { minRequestsPerSecond: 8_000 }, create: { minRequestsPerSecond: 3_000 } };
const TARGET_CONNECTIONS = 10;

/** A build's vault, filled by that build's own service. */
interface FilledVault {
  /** The row's system: Tokenbench alone, or the build's name in an A/B of builds. */
  system: string;
  build: ComparedBuild;
  dataDir: string;
  privateKey: string;
  tokens: FilledToken[];
  fillSeconds: number;
}

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

const fillNote = (options: VaultBenchOptions, vault: FilledVault, ab: boolean) =>
  `Fill${ab ? ` (${vault.system})` : ''}: ${options.tokens.toLocaleString('en-US')} tokens in ${vault.fillSeconds.toFixed(1)} s through POST /tokenize (100 per call, 3 calls in flight) = ${Math.round(options.tokens / vault.fillSeconds).toLocaleString('en-US')} tokens/s.`;

const SERVICE_NOTE = `Each case gets a fresh service process on the same vault: the production build of the serve CLI (out/main/serve.js, built by \`npm run bench\`, started with ${ENGINE_NODE_FLAGS.join(' ')} as \`npm run serve\` starts it), as the desktop app ships it.`;

function notes(options: VaultBenchOptions, vaults: FilledVault[], replies: Required<BaselineReplies> | null): string[] {
  const ab = replies === null;
  return [
    ...vaults.map((vault) => fillNote(options, vault, ab)),
    `read = GET /tokens/{id} over ids drawn at random from the fill; create = POST /tokens with a new Luhn-valid card number each time. Key: the bootstrap private application (bare token:* permissions, so data comes back masked). ${SERVICE_NOTE}`,
    "Every response is checked in autocannon's onResponse hook: status (200/201), JSON body, the id asked for (reads), the type, and `data` equal to the expected mask (card number XXXXXXXXXXXX1234, SSN XXX-XX-1234, `token` tokens redacted); creates also `_extras.deduplicated = false`." +
      (ab ? '' : " The baseline's fixed reply is parsed and its id compared, so the load generator does the same work for both."),
    ab
      ? `Builds compared: ${vaults.map((v) => v.system).join(', ')}. Each is its own built CLI (another commit's built apart from its own tree by git-ref-build.ts, with this checkout's node_modules) started as a child process in the same way, with this checkout's Node flags, over its own vault filled alike by its own service; "vs baseline" = this row's req/s ÷ ${vaults[0].system}'s for the same case and connections in this run. Load generator and services share the machine's cores; the idle build's process stays up while the other is measured.`
      : `The baseline is a bare node:http server in its own process answering the service's own read and create replies (${replies.GET.body.length} and ${replies.POST.body.length} bytes); "vs baseline" = Tokenbench req/s ÷ baseline req/s for the same case and connections in this run. Load generator, service and baseline share the machine's cores.`,
    `Each cell ran ${options.rounds} round(s), ${ab ? 'the builds' : 'baseline and service'} in turn (the order flipped every round), ${options.warmupSeconds} s unmeasured warm-up + ${options.durationSeconds} s measured each; the table shows the round with the median req/s (its latency and CPU too) and, in brackets, the lowest and highest round. Wrong answers count from every round.`,
    'The file column is everything the service keeps: tokenbench.sqlite with its WAL, history.sqlite with its journal; the history holds the last 10,000 requests, and "file per token" includes it.',
    ...(options.profileDir
      ? ['This run was profiled (--cpu-prof on the service during each case): its speeds are lower than an unprofiled run.']
      : []),
  ];
}

/** Fills the new vault of `service` (a build's own, just started on `dataDir`) through POST /tokenize. */
async function fillBuildVault(service: ChildServer<TokenbenchInfo>, build: ComparedBuild, system: string, dataDir: string, tokens: number, log: (line: string) => void): Promise<FilledVault> {
  const { url, privateKey } = service.info;
  if (!privateKey) throw new Error(`${system}: the service printed no private key on its first start`);
  log(`Filling ${system}'s vault with ${tokens.toLocaleString('en-US')} tokens through POST /tokenize…`);
  const fillStarted = performance.now();
  const filled = await fillVault(url, privateKey, tokens);
  return { system, build, dataDir, privateKey, tokens: filled, fillSeconds: (performance.now() - fillStarted) / 1000 };
}

/**
 * The vault benchmark: fill the vault, then per case and connection count, rounds of the baseline and the service in
 * turn (so both see the same machine state), and the vault's size on disk before and after. With baseline refs, the
 * systems are the builds, each over its own vault.
 */
export async function runVaultBench(options: VaultBenchOptions): Promise<SuiteResult> {
  const { log } = options;
  const builds = buildsToCompare(options.baselineRefs, log);
  const ab = builds.length > 1;
  const dataDirs: string[] = [];
  const vaults: FilledVault[] = [];
  const afterFill: VaultDiskUsage[] = [];
  const services: ChildServer<TokenbenchInfo>[] = [];
  let baseline: ChildServer<{ url: string }> | undefined;
  let replies: Required<BaselineReplies> | null = null;
  // Card numbers go on from the fill's, so every create is a new card in every vault.
  let seq = options.tokens;
  const nextSeq = () => seq++;
  try {
    for (const build of builds) {
      const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-bench-'));
      dataDirs.push(dataDir);
      services.push(await startTokenbench(dataDir, { cli: build.cli }));
      const vault = await fillBuildVault(services[0], build, ab ? build.name : TOKENBENCH, dataDir, options.tokens, log);
      vaults.push(vault);
      if (!ab) {
        // The baseline answers what the service answers: a real masked card read and a real create reply.
        const card = vault.tokens.find((t) => t.type === 'card')!;
        const { url } = services[0].info;
        const { privateKey } = vault;
        replies = {
          GET: { status: 200, body: await expectReply(200, url, privateKey, 'GET', `/tokens/${card.id}`) },
          POST: { status: 201, body: await expectReply(201, url, privateKey, 'POST', '/tokens', cardRequest(nextSeq()).request) },
        };
      }
      await services.pop()!.stop();
      afterFill.push(measureVault(vault.dataDir));
    }
    if (replies) baseline = await startBaseline(replies);

    const cases: { name: 'read' | 'create'; plan(vault: FilledVault): RequestPlan; reply?: FixedReply }[] = [
      { name: 'read', plan: (vault) => readPlan(vault.tokens), reply: replies?.GET },
      { name: 'create', plan: () => createPlan(nextSeq), reply: replies?.POST },
    ];
    const measurements: Measurement[] = [];
    const tables: Table[] = [];
    const { durationSeconds, warmupSeconds } = options;
    for (const { name, plan, reply } of cases) {
      const profileDirs = vaults.map((_, i) => options.profileDir && join(options.profileDir, name, ab ? String(i) : ''));
      for (const [i, vault] of vaults.entries()) {
        services.push(await startTokenbench(vault.dataDir, { cli: vault.build.cli, cpuProfileDir: profileDirs[i] }));
      }
      for (const connections of options.connections) {
        const runs = [
          ...(baseline && reply ? [{ system: BASELINE, server: baseline, plan: againstFixedReply(plan(vaults[0]), reply), key: vaults[0].privateKey }] : []),
          ...vaults.map((vault, i) => ({ system: vault.system, server: services[i], plan: plan(vault), key: vault.privateKey })),
        ];
        const rounds = await inRounds(options.rounds, runs, (run, round) => {
          log(`${name}, ${connections} connection(s), round ${round} of ${options.rounds}: ${run.system}…`);
          const headers = { 'content-type': 'application/json', 'bt-api-key': run.key };
          return runLoad(run.plan, { url: run.server.info.url, serverPid: run.server.pid, connections, headers, durationSeconds, warmupSeconds });
        });
        for (const [i, run] of runs.entries()) {
          // The targets are this build's (the last one).
          const target = run.system === vaults.at(-1)!.system && connections === TARGET_CONNECTIONS ? TARGETS[name] : undefined;
          measurements.push({ case: name, system: run.system, connections, load: medianRound(rounds[i]), target });
        }
      }
      for (const service of services.splice(0)) await service.stop();
      for (const [i, dir] of profileDirs.entries()) {
        if (dir) tables.push(...summarizeCpuProfiles(dir, ab ? `${name}, ${vaults[i].system}` : name));
      }
    }

    const afterRun = vaults.map((vault) => measureVault(vault.dataDir));
    const diskRows = vaults.flatMap((vault, i) => {
      const of = ab ? `, ${vault.system}` : '';
      return [diskRow(`after the fill${of}`, afterFill[i]), diskRow(`after the run${of}`, afterRun[i])];
    });
    tables.unshift({
      title: 'Vault on disk (tokenbench.sqlite with its WAL after a TRUNCATE checkpoint, history.sqlite with its journal)',
      columns: ['when', 'tokens', 'file', 'file per token', 'token tables per token', 'request history'],
      rows: diskRows,
    });
    const tokens = `${options.tokens.toLocaleString('en-US')} tokens (card, token, SSN) in the vault`;
    return {
      suite: 'vault',
      title: ab ? `Vault over HTTP, ${tokens}: ${[...builds].reverse().map((b) => b.name).join(' against ')}` : `Vault over HTTP, ${tokens}`,
      baselineSystem: ab ? vaults[0].system : BASELINE,
      measurements,
      tables,
      notes: notes(options, vaults, replies),
      data: ab
        ? { vaults: vaults.map(({ system, fillSeconds }, i) => ({ system, fillSeconds, afterFill: afterFill[i], afterRun: afterRun[i] })) }
        : { fillSeconds: vaults[0].fillSeconds, afterFill: afterFill[0], afterRun: afterRun[0] },
    };
  } finally {
    await baseline?.stop();
    for (const service of services) await service.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}
