/**
 * `npm run bench`: runs the benchmark suites, writes bench/results/{bench-<time>,latest}.{json,md} and prints the
 * markdown. A script, not a test: it measures, and fails (exit 1) only when a response was wrong, not when slow.
 *
 *   --suite NAME        run only this suite (repeatable; default: all)      --duration S   measured seconds per run (8)
 *   --connections 1,10  connection counts                                   --warmup S     unmeasured seconds first (2)
 *   --tokens N          tokens in the vault (100000)                        --profile      CPU-profile the service
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './child-process';
import { machineInfo } from './machine';
import { buildReport, writeReport, type SuiteResult } from './report';
import { runVaultBench } from './vault-bench';

const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

interface CommonSettings {
  connections: number[];
  durationSeconds: number;
  warmupSeconds: number;
  profileDir?: string;
  log(line: string): void;
}

/** One entry per suite; a suite owns its servers and returns its scenario table. */
const SUITES: Record<string, (settings: CommonSettings, tokens: number) => Promise<SuiteResult>> = {
  vault: (settings, tokens) => runVaultBench({ ...settings, tokens }),
};

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} takes a positive number, got "${text}"`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      suite: { type: 'string', multiple: true },
      connections: { type: 'string', default: '1,10' },
      duration: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '2' },
      tokens: { type: 'string', default: '100000' },
      profile: { type: 'boolean', default: false },
    },
  });
  const suites = values.suite ?? Object.keys(SUITES);
  const unknown = suites.filter((s) => !SUITES[s]);
  if (unknown.length > 0) throw new Error(`Unknown suite ${unknown.join(', ')}; known: ${Object.keys(SUITES).join(', ')}`);

  const machine = machineInfo();
  const settings: CommonSettings = {
    connections: values.connections.split(',').map((c) => Math.round(positive('connections', c))),
    durationSeconds: positive('duration', values.duration),
    warmupSeconds: Number(values.warmup),
    profileDir: values.profile ? join(RESULTS_DIR, `profile-${machine.date.replace(/[:.]/g, '-')}`) : undefined,
    log: (line) => process.stderr.write(`[bench] ${line}\n`),
  };
  const tokens = Math.round(positive('tokens', values.tokens));

  const results: SuiteResult[] = [];
  for (const suite of suites) results.push(await SUITES[suite](settings, tokens));

  const report = buildReport(
    machine,
    {
      'measured s': settings.durationSeconds,
      'warm-up s': settings.warmupSeconds,
      connections: settings.connections.join('/'),
      tokens,
      profiled: values.profile,
    },
    results,
  );
  process.stdout.write(writeReport(report, RESULTS_DIR));
  settings.log(`Results in ${RESULTS_DIR}/latest.{json,md}`);
  const failed = report.suites.flatMap((s) => s.rows).filter((r) => !r.clean);
  for (const row of failed) settings.log(`WRONG ANSWERS: ${row.case} / ${row.system} / ${row.connections} connection(s)`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`bench: ${(error as Error).stack ?? error}\n`);
    process.exit(2);
  },
);
