/**
 * The benchmark's own parts: its checks must pass the service's real answers and fail wrong ones (or every figure
 * it prints would say nothing about correctness), its load runner must count what it sees, and the report must
 * compare and judge rows as documented.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luhnValid } from '../../shared/checksums';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { fakeLoad } from './fake-load';
import { runLoad, type RequestPlan } from './load';
import { machineInfo } from './machine';
import { measurementsOf } from './proxy-bench';
import { cpuSeconds } from './process-cpu';
import { buildReport, reportMarkdown } from './report';
import { inRounds, medianRound } from './rounds';
import { selectSuites } from './suite-selection';
import { mixedRequest } from './vault-data';
import { measureVault } from './vault-disk';
import { fillVault, type FilledToken } from './vault-fill';
import { againstFixedReply, createPlan, readPlan } from './vault-plans';

let t: TestEngine;
let tokens: FilledToken[];
beforeAll(async () => {
  t = await startTestEngine();
  tokens = await fillVault(t.url, t.privateKey, 150);
});
afterAll(() => t.stop());

/** Sends one request a plan builds, through real HTTP, and says whether the plan's check accepts the answer. */
async function sendAndCheck(plan: RequestPlan): Promise<{ accepted: boolean; text: string; context: Record<string, unknown> }> {
  const context: Record<string, unknown> = {};
  const request = plan.next(context);
  const res = await t.call(request.method, request.path, { key: t.privateKey, raw: request.body, headers: { 'content-type': 'application/json' } });
  return { accepted: plan.check(res.status, res.text, context), text: res.text, context };
}

describe('vault fill and request plans against the real service', () => {
  it('fills distinct tokens of the three types', () => {
    expect(new Set(tokens.map((x) => x.id)).size).toBe(150);
    expect(new Set(tokens.map((x) => x.type))).toEqual(new Set(['card', 'token', 'social_security_number']));
  });

  it('builds Luhn-valid card numbers, distinct per sequence number', () => {
    const numbers = Array.from({ length: 300 }, (_, i) => (mixedRequest(i * 3).request.data as { number: string }).number);
    expect(numbers.every(luhnValid)).toBe(true);
    expect(new Set(numbers).size).toBe(300);
  });

  it('accepts every real read answer, masked as the type says', async () => {
    const plan = readPlan(tokens);
    for (let i = 0; i < 30; i++) expect((await sendAndCheck(plan)).accepted).toBe(true);
  });

  it('rejects a read answer for another token, a 404, and unmasked data', () => {
    const card = tokens.find((x) => x.type === 'card')!;
    const other = tokens.find((x) => x.type === 'card' && x.id !== card.id)!;
    const plan = readPlan([card]);
    const context: Record<string, unknown> = {};
    plan.next(context);
    const reply = (token: FilledToken, data: unknown) => JSON.stringify({ id: token.id, type: token.type, data });
    expect(plan.check(200, reply(card, card.maskedData), context)).toBe(true);
    expect(plan.check(200, reply(other, other.maskedData), context)).toBe(false);
    expect(plan.check(404, reply(card, card.maskedData), context)).toBe(false);
    const revealed = { ...(card.maskedData as object), number: '4000000000000002' };
    expect(plan.check(200, reply(card, revealed), context)).toBe(false);
    expect(plan.check(200, 'not json', context)).toBe(false);
  });

  it('creates new cards that the create check accepts, and rejects a reply for another card', async () => {
    let seq = 10_000;
    const plan = createPlan(() => seq++);
    const first = await sendAndCheck(plan);
    expect(first.accepted).toBe(true);
    expect((await sendAndCheck(plan)).accepted).toBe(true);
    const next: Record<string, unknown> = {};
    plan.next(next);
    expect(plan.check(201, first.text, next)).toBe(false);
    expect(plan.check(200, first.text, first.context)).toBe(false);
  });

  it('checks a baseline reply by its id and status', () => {
    const body = JSON.stringify({ id: 'fixed-id', type: 'card' });
    const plan = againstFixedReply(readPlan(tokens), { status: 200, body });
    expect(plan.check(200, body, {})).toBe(true);
    expect(plan.check(200, JSON.stringify({ id: 'other' }), {})).toBe(false);
    expect(plan.check(500, body, {})).toBe(false);
  });

  it('measures the vault on disk while the service runs', () => {
    const disk = measureVault(t.dataDir!);
    expect(disk.tokens).toBeGreaterThanOrEqual(150);
    expect(disk.checkpointed).toBe(true);
    expect(disk.walBytes).toBe(0);
    expect(disk.tokenTableBytes).toBeGreaterThan(0);
    expect(disk.fileBytes).toBeGreaterThan(disk.tokenTableBytes);
    expect(disk.historyBytes).toBeGreaterThan(0);
  });
});

describe('runLoad', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Odd request numbers get a 500, so a run sees both kinds of answer.
    server = createServer((req, res) => {
      const n = Number(req.url!.slice(1));
      res.writeHead(n % 2 === 0 ? 200 : 500, { 'content-type': 'application/json' }).end(JSON.stringify({ n }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  it('counts non-2xx answers and failed checks, and meters both processes', async () => {
    let n = 0;
    const plan: RequestPlan = {
      next: (context) => {
        context.n = n;
        return { method: 'GET', path: `/${n++}` };
      },
      // Accepts only answers to multiples of 4, whatever their status.
      check: (_status, body, context) => JSON.parse(body).n === context.n && (context.n as number) % 4 === 0,
    };
    const result = await runLoad(plan, { url, serverPid: process.pid, connections: 2, durationSeconds: 1, warmupSeconds: 0 });
    expect(result.responses).toBeGreaterThan(20);
    expect(result.checked).toBeGreaterThanOrEqual(result.responses);
    expect(result.non2xx / result.responses).toBeCloseTo(0.5, 1);
    expect(result.checkFailures / result.checked).toBeCloseTo(0.75, 1);
    expect(result.latencyMs.p99).toBeGreaterThanOrEqual(result.latencyMs.p50);
    expect(result.serverCores).toBeGreaterThan(0);
  });
});

describe('runLoad over replicas', () => {
  const servers: Server[] = [];
  const served = [0, 0];
  beforeAll(async () => {
    for (const i of [0, 1]) {
      const server = createServer((_req, res) => {
        served[i]++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      servers.push(server);
    }
  });
  afterAll(() => Promise.all(servers.map((server) => new Promise<void>((done) => server.close(() => done())))));

  it('spreads its connections over every URL and meters each named process', async () => {
    const urls = servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const plan: RequestPlan = { next: () => ({ method: 'GET', path: '/' }), check: (status) => status === 200 };
    const result = await runLoad(plan, {
      url: urls,
      serverPid: process.pid,
      metered: { self: () => cpuSeconds(process.pid), nothing: () => null },
      connections: 4,
      durationSeconds: 1,
      warmupSeconds: 0,
    });
    expect(result.checkFailures).toBe(0);
    // Two connections each: neither server gets much more than the other.
    expect(Math.min(...served)).toBeGreaterThan(Math.max(...served) / 3);
    expect(result.meteredCores?.self).toBeGreaterThan(0);
    expect(result.meteredCores?.nothing).toBeNull();
  });
});

describe('report', () => {
  const report = buildReport(machineInfo(), { tokens: 10 }, [
    {
      suite: 'demo',
      title: 'Demo suite',
      baselineSystem: 'direct',
      measurements: [
        { case: 'read', system: 'direct', connections: 10, load: fakeLoad(10_000) },
        { case: 'read', system: 'service', connections: 10, load: fakeLoad(2_500), target: { minRequestsPerSecond: 2_000 } },
        { case: 'read', system: 'proxy', connections: 10, load: fakeLoad(1_000, { non2xx: 3 }), target: { minRatio: 0.2 } },
        { case: 'read', system: 'service', connections: 1, load: fakeLoad(900) },
      ],
      tables: [{ title: 'Disk', columns: ['when', 'bytes'], rows: [['after', 42]] }],
      notes: ['a note'],
    },
  ]);
  const rows = report.suites[0].rows;

  it('compares each row with the baseline of the same case and connections', () => {
    expect(rows.map((r) => r.ratioToBaseline)).toEqual([null, 0.25, 0.1, null]);
  });

  it('judges targets and flags rows with wrong answers', () => {
    expect(rows.map((r) => r.targetMet)).toEqual([null, true, false, null]);
    expect(rows.map((r) => r.clean)).toEqual([true, true, false, true]);
  });

  it('renders the scenario table, extra tables and notes as markdown', () => {
    const markdown = reportMarkdown(report);
    expect(markdown).toContain('| read | service | 10 | 2,500 | 25 % |');
    expect(markdown).toContain('≥ 20 % of baseline: **missed**');
    expect(markdown).toContain('#### Disk');
    expect(markdown).toContain('- a note');
  });
});

describe('rounds', () => {
  const rounds = [
    fakeLoad(5_000, { latencyMs: { p50: 3, p99: 9 } }),
    fakeLoad(7_600, { latencyMs: { p50: 1, p99: 4 } }),
    fakeLoad(6_100, { latencyMs: { p50: 2, p99: 6 }, checkFailures: 2 }),
  ];

  it('report the median round whole, with every wrong answer and every round\'s rate', () => {
    const median = medianRound(rounds);
    expect(median.requestsPerSecond).toBe(6_100);
    expect(median.latencyMs).toEqual({ p50: 2, p99: 6 });
    expect(median.checkFailures).toBe(2);
    expect(median.checked).toBe(3_000);
    expect(median.roundsRequestsPerSecond).toEqual([5_000, 7_600, 6_100]);
    // A wrong answer in a round that is not the median still marks the row.
    const report = buildReport(machineInfo(), {}, [
      {
        suite: 'demo',
        title: 'Demo',
        baselineSystem: 'direct',
        measurements: [{ case: 'c', system: 'direct', connections: 1, load: medianRound(rounds) }],
        tables: [],
        notes: [],
      },
    ]);
    expect(report.suites[0].rows[0].clean).toBe(false);
    expect(reportMarkdown(report)).toContain('| c | direct | 1 | 6,100 (5,000–7,600) |');
  });

  it('run every system in turn, round after round, every other round in the reverse order', async () => {
    const order: string[] = [];
    const results = await inRounds(3, ['a', 'b', 'c'], async (system, round) => {
      order.push(`${system}${round}`);
      return `${system}:${round}`;
    });
    // No system always runs right after the same one (in the proxy suite two of them share a process).
    expect(order).toEqual(['a1', 'b1', 'c1', 'c2', 'b2', 'a2', 'a3', 'b3', 'c3']);
    expect(results).toEqual([['a:1', 'a:2', 'a:3'], ['b:1', 'b:2', 'b:3'], ['c:1', 'c:2', 'c:3']]);
  });

  it('compare with the baseline round by round: a slow stretch that both sides ran in decides nothing', () => {
    const withRounds = (rates: number[]) => medianRound(rates.map((rate) => fakeLoad(rate)));
    // Round 2 ran while the machine was slow for both; the service kept 94 % in two rounds of three. Their medians
    // come from different rounds (1,000 and 880) and would say 88 %.
    const baseline = withRounds([1_000, 500, 1_100]);
    const service = withRounds([940, 470, 880]);
    const report = buildReport(machineInfo(), {}, [
      {
        suite: 'demo',
        title: 'Demo',
        baselineSystem: 'direct',
        measurements: [
          { case: 'c', system: 'direct', connections: 1, load: baseline },
          { case: 'c', system: 'service', connections: 1, load: service, target: { minRatio: 0.9 } },
        ],
        tables: [],
        notes: [],
      },
    ]);
    const row = report.suites[0].rows[1];
    expect(row.ratioToBaseline).toBeCloseTo(0.94, 10);
    expect(row.targetMet).toBe(true);
  });

  it('take the lower middle of an even count, and refuse none', () => {
    expect(medianRound(rounds.slice(0, 2)).requestsPerSecond).toBe(5_000);
    expect(() => medianRound([])).toThrow(/at least one round/);
  });
});

describe('an A/B of builds', () => {
  const cell = { body: '1 KB', expressions: 20, connections: 10, peakRssBytes: null };
  const calls = (build: string) => [
    { name: `Tokenbench /proxy, ${build}`, compared: { call: 'ephemeral', build } },
    { name: `Tokenbench pre-configured, ${build}`, compared: { call: 'pre-configured', build } },
  ];

  it("reports each build's call as a row of its own case, against the baseline build's same call", () => {
    const systems = [...calls('main (abc)'), ...calls('this build')];
    const runs = systems.map((system, i) => ({ ...cell, system: system.name, load: fakeLoad([1_000, 800, 900, 1_000][i]) }));
    const measurements = measurementsOf(runs, systems);
    const report = buildReport(machineInfo(), {}, [{ suite: 'proxy', title: 'A/B', baselineSystem: 'main (abc)', measurements, tables: [], notes: [] }]);
    expect(report.suites[0].rows.map((r) => [r.case, r.system, r.ratioToBaseline])).toEqual([
      ['1 KB, 20 expr, ephemeral', 'main (abc)', null],
      ['1 KB, 20 expr, pre-configured', 'main (abc)', null],
      ['1 KB, 20 expr, ephemeral', 'this build', 0.9],
      ['1 KB, 20 expr, pre-configured', 'this build', 1.25],
    ]);
  });

  it('keeps the rows of a run without builds: the system is the proxy, the case the cell', () => {
    const measurements = measurementsOf([{ ...cell, system: 'nginx', load: fakeLoad(500), pool: 2_000 }], [{ name: 'nginx' }]);
    expect(measurements.map((m) => [m.case, m.system])).toEqual([['1 KB, 20 expr over 2,000 tokens', 'nginx']]);
  });

  const suites = { vault: { comparesBuilds: true }, proxy: { comparesBuilds: true }, webhooks: {} };

  it('runs every suite when none is named (the refs go to those that compare builds), or those named', () => {
    expect(selectSuites(undefined, suites, ['main'])).toEqual(['vault', 'proxy', 'webhooks']);
    expect(selectSuites(['proxy', 'vault'], suites, ['main'])).toEqual(['proxy', 'vault']);
    expect(selectSuites(['webhooks'], suites, [])).toEqual(['webhooks']);
  });

  it('refuses --baseline for a named suite that measures one build, and names that are no suite', () => {
    expect(() => selectSuites(['vault', 'webhooks'], suites, ['main'])).toThrow('--baseline takes suites that compare builds (vault, proxy), not webhooks');
    expect(() => selectSuites(['toString'], suites, [])).toThrow('Unknown suite toString; known: vault, proxy, webhooks');
  });
});

describe('npm run bench options', () => {
  /**
   * The bench script with `args`, under tsx's loader as `npm run bench` runs it: its exit code and what it wrote to
   * stderr. It refuses bad options before any run.
   */
  const bench = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'run-benchmarks.ts'), ...args], {
      encoding: 'utf8',
      timeout: 30_000,
    });

  it.each([
    [['--rounds', '0.4'], '--rounds takes integers ≥ 1, got "0.4"'],
    [['--rounds', '0'], '--rounds takes integers ≥ 1, got "0"'],
    [['--tokens', 'many'], '--tokens takes integers ≥ 1, got "many"'],
    [['--connections', '1,2.5'], '--connections takes integers ≥ 1, got "2.5"'],
    [['--duration', '0'], '--duration takes a number of seconds > 0, got "0"'],
    [['--warmup', 'soon'], '--warmup takes a number of seconds ≥ 0, got "soon"'],
    [['--token-duration', '0'], '--token-duration takes a number of seconds > 0, got "0"'],
    [['--bodies', '1,'], '--bodies takes integers ≥ 1, got ""'],
  ])('refuses %j with a message that names the option', (args, message) => {
    const run = bench(...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
