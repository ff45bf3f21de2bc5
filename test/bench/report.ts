import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from './load';
import type { MachineInfo } from './machine';

/** A speed goal a measurement should reach: absolute, or as a share of the suite's baseline in the same run. */
export interface Target {
  minRequestsPerSecond?: number;
  minRatio?: number;
}

/** One cell of a suite's scenario table: a case (what is sent), a system (who answers it), a connection count. */
export interface Measurement {
  case: string;
  system: string;
  connections: number;
  load: LoadResult;
  target?: Target;
}

/** Any further figures a suite reports (disk use, a CPU profile), as a small table. */
export interface Table {
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

export interface SuiteResult {
  suite: string;
  title: string;
  /** The system every other one is compared with, measured in the same run, per case and connection count. */
  baselineSystem: string;
  measurements: Measurement[];
  tables: Table[];
  notes: string[];
  /** Raw figures for the JSON file (comparing runs later). */
  data?: Record<string, unknown>;
}

export interface ReportRow extends Measurement {
  ratioToBaseline: number | null;
  targetMet: boolean | null;
  /** No connection errors, no non-2xx, no response that failed its check. */
  clean: boolean;
}

export interface BenchReport {
  machine: MachineInfo;
  settings: Record<string, unknown>;
  suites: (Omit<SuiteResult, 'measurements'> & { rows: ReportRow[] })[];
}

function isClean(load: LoadResult): boolean {
  return load.errors === 0 && load.non2xx === 0 && load.checkFailures === 0 && load.checked > 0;
}

/**
 * A row's req/s over its baseline's. When both ran the same rounds in turn (rounds.ts), the median of each round's own
 * ratio: a slow stretch of the machine, or a vault growing under creates, then slows both sides of a round alike instead
 * of deciding which round is each side's median.
 */
function ratioTo(load: LoadResult, baseline: LoadResult): number {
  const [rounds, baseRounds] = [load.roundsRequestsPerSecond, baseline.roundsRequestsPerSecond];
  if (!rounds || !baseRounds || rounds.length !== baseRounds.length || rounds.length < 2) return load.requestsPerSecond / baseline.requestsPerSecond;
  const ratios = rounds.map((rate, i) => rate / baseRounds[i]).sort((a, b) => a - b);
  const middle = ratios.length >> 1;
  return ratios.length % 2 === 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
}

function rowsOf(suite: SuiteResult): ReportRow[] {
  return suite.measurements.map((m) => {
    const baseline = suite.measurements.find(
      (b) => b.system === suite.baselineSystem && b.case === m.case && b.connections === m.connections,
    );
    const ratio = baseline && m !== baseline ? ratioTo(m.load, baseline.load) : null;
    let targetMet: boolean | null = null;
    if (m.target) {
      const { minRequestsPerSecond, minRatio } = m.target;
      targetMet =
        (minRequestsPerSecond === undefined || m.load.requestsPerSecond >= minRequestsPerSecond) &&
        (minRatio === undefined || (ratio !== null && ratio >= minRatio));
    }
    return { ...m, ratioToBaseline: ratio, targetMet, clean: isClean(m.load) };
  });
}

export function buildReport(machine: MachineInfo, settings: Record<string, unknown>, suites: SuiteResult[]): BenchReport {
  return {
    machine,
    settings,
    suites: suites.map((suite) => {
      const { measurements: _measured, ...rest } = suite;
      return { ...rest, rows: rowsOf(suite) };
    }),
  };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (Number.isNaN(n) ? '–' : n < 10 ? n.toFixed(2) : n.toFixed(1));

function targetText(row: ReportRow): string {
  if (!row.target) return '';
  const goals = [];
  if (row.target.minRequestsPerSecond !== undefined) goals.push(`≥ ${int(row.target.minRequestsPerSecond)}/s`);
  if (row.target.minRatio !== undefined) goals.push(`≥ ${Math.round(row.target.minRatio * 100)} % of baseline`);
  return `${goals.join(', ')}: **${row.targetMet ? 'met' : 'missed'}**`;
}

function markdownTable(columns: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(columns), line(columns.map(() => '---')), ...rows.map(line)].join('\n');
}

const SCENARIO_COLUMNS = [
  'case', 'system', 'conns', 'req/s: median (lowest–highest round)', 'vs baseline', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'bad bodies / checked',
  'CPU cores: server (µs/req) / load gen', 'target',
];

/** Cores kept busy, and for the server the CPU time per request: that holds even when the machine is contended. */
function cpuText(load: LoadResult): string {
  const { serverCores, loadGeneratorCores, requestsPerSecond } = load;
  if (serverCores === null || loadGeneratorCores === null) return '?';
  const perRequest = Math.round((serverCores / requestsPerSecond) * 1e6);
  return `${serverCores.toFixed(2)} (${perRequest} µs) / ${loadGeneratorCores.toFixed(2)}`;
}

/** The median's req/s, and the lowest and highest round when there were several. */
function rateText(load: LoadResult): string {
  const rounds = load.roundsRequestsPerSecond ?? [];
  if (rounds.length < 2) return int(load.requestsPerSecond);
  return `${int(load.requestsPerSecond)} (${int(Math.min(...rounds))}–${int(Math.max(...rounds))})`;
}

function scenarioRow(row: ReportRow): (string | number)[] {
  const { load } = row;
  return [
    row.case,
    row.system,
    row.connections,
    rateText(load),
    row.ratioToBaseline === null ? '–' : `${Math.round(row.ratioToBaseline * 100)} %`,
    ms(load.latencyMs.p50),
    ms(load.latencyMs.p99),
    load.errors,
    load.non2xx,
    `${load.checkFailures} / ${int(load.checked)}`,
    cpuText(load),
    targetText(row),
  ];
}

export function reportMarkdown(report: BenchReport): string {
  const { machine } = report;
  const parts = [
    `Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}; run ${machine.date}, load average ${machine.loadAverage} at the start.`,
    `Settings: ${Object.entries(report.settings).map(([k, v]) => `${k} ${v}`).join(', ')}.`,
    'CPU column: cores each process kept busy during the measured run (from /proc), and the server\'s CPU time per ' +
      'request. A server under 1 core at 10 connections was waiting (I/O) or starved (a shared machine); ' +
      '1,000,000 ÷ µs/req is the rate it could reach with one core to itself.',
    'vs baseline: the row\'s req/s ÷ the baseline\'s in the same cell; with rounds, the median of the rounds\' ratios, ' +
      'each round having run both in turn.',
  ];
  for (const suite of report.suites) {
    parts.push(`### ${suite.title}`);
    // A suite that puts no load on a server (the Tokens page's, the Composer's flags) has only its own tables.
    if (suite.rows.length > 0) parts.push(markdownTable(SCENARIO_COLUMNS, suite.rows.map(scenarioRow)));
    for (const table of suite.tables) parts.push(`#### ${table.title}`, markdownTable(table.columns, table.rows));
    if (suite.notes.length > 0) parts.push(suite.notes.map((n) => `- ${n}`).join('\n'));
  }
  return parts.join('\n\n') + '\n';
}

/** Writes `bench-<time>.json|md` and `latest.json|md` under `dir`; returns the markdown. */
export function writeReport(report: BenchReport, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const markdown = reportMarkdown(report);
  const stamp = report.machine.date.replace(/[:.]/g, '-');
  for (const name of [`bench-${stamp}`, 'latest']) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify(report, null, 2) + '\n');
    writeFileSync(join(dir, `${name}.md`), markdown);
  }
  return markdown;
}
