/**
 * The proxy's targets (docs/performance.md, Targets), judged on one run's cells: Tokenbench's throughput at or
 * above the Node peer proxy's in every cell, 20 expressions costing at most 20 % of the 0-expression throughput, at
 * most 1 ms added p50 at 1 connection, and no errors.
 */
import type { LoadResult } from './load';

/** One load run of the proxy matrix. */
export interface ProxyRun {
  body: string;
  expressions: number;
  connections: number;
  system: string;
  load: LoadResult;
  /** Peak RSS of the system's process(es) during the run; null where /proc cannot tell. */
  peakRssBytes: number | null;
  /** Tokens the expressions name in turn, one set per request; undefined: the same cards in every request. */
  pool?: number;
}

/** The run of `system` in the cell of `like` (same body, connections and pool; same expressions unless given). */
export function runIn(
  runs: readonly ProxyRun[],
  like: ProxyRun,
  system: string,
  expressions = like.expressions,
): ProxyRun | undefined {
  const { body, connections, pool } = like;
  return runs.find(
    (r) =>
      r.system === system && r.body === body && r.connections === connections && r.expressions === expressions && r.pool === pool,
  );
}

export interface ProxySystems {
  direct: string;
  tokenbench: string;
  /** The Node peer proxy Tokenbench must keep up with. */
  peer: string;
  /** Tokenbench's pre-configured proxy (no transforms), which must keep up with its ephemeral one. */
  preconfigured?: string;
}

export interface TargetCheck {
  target: string;
  cell: string;
  measured: string;
  met: boolean;
}

/** 20 expressions may cost at most this share of the 0-expression throughput. */
export const MAX_EXPRESSION_COST = 0.2;
export const MAX_ADDED_P50_MS = 1;
/** A pre-configured proxy without code keeps at least this share of the ephemeral proxy's throughput (issue 39). */
export const MIN_PRECONFIGURED_SHARE = 0.9;

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const pct = (ratio: number) => `${Math.round(ratio * 100)} %`;
const cellName = (run: ProxyRun) => `${run.body}, ${run.expressions} expr, ${run.connections} conn`;
/** Answers that went wrong: connection errors (timeouts included), non-2xx, failed checks. */
const wrongAnswers = (load: LoadResult) => load.errors + load.non2xx + load.checkFailures;

/** Judges the matrix (the same cards in every request); cells over a token pool count for errors only. */
export function checkProxyTargets(runs: readonly ProxyRun[], systems: ProxySystems): TargetCheck[] {
  const tokenbench = runs.filter((r) => r.system === systems.tokenbench && r.pool === undefined);
  const checks: TargetCheck[] = [];

  for (const run of tokenbench) {
    const peer = runIn(runs, run, systems.peer);
    if (!peer) continue;
    const ratio = run.load.requestsPerSecond / peer.load.requestsPerSecond;
    checks.push({
      target: `req/s ≥ ${systems.peer}`,
      cell: cellName(run),
      measured: `${int(run.load.requestsPerSecond)} vs ${int(peer.load.requestsPerSecond)} (${pct(ratio)})`,
      met: ratio >= 1,
    });
  }

  for (const many of tokenbench.filter((r) => r.expressions === 20)) {
    const none = runIn(runs, many, systems.tokenbench, 0);
    if (!none) continue;
    const ratio = many.load.requestsPerSecond / none.load.requestsPerSecond;
    checks.push({
      target: `20 expr ≥ ${pct(1 - MAX_EXPRESSION_COST)} of 0 expr`,
      cell: `${many.body}, ${many.connections} conn`,
      measured: `${int(many.load.requestsPerSecond)} vs ${int(none.load.requestsPerSecond)} (${pct(ratio)})`,
      met: ratio >= 1 - MAX_EXPRESSION_COST,
    });
  }

  for (const run of runs.filter((r) => r.system === systems.preconfigured && r.pool === undefined)) {
    const ephemeral = runIn(runs, run, systems.tokenbench);
    if (!ephemeral) continue;
    const ratio = run.load.requestsPerSecond / ephemeral.load.requestsPerSecond;
    checks.push({
      target: `pre-configured ≥ ${pct(MIN_PRECONFIGURED_SHARE)} of ephemeral`,
      cell: cellName(run),
      measured: `${int(run.load.requestsPerSecond)} vs ${int(ephemeral.load.requestsPerSecond)} (${pct(ratio)})`,
      met: ratio >= MIN_PRECONFIGURED_SHARE,
    });
  }

  for (const run of tokenbench.filter((r) => r.connections === 1)) {
    const direct = runIn(runs, run, systems.direct);
    if (!direct) continue;
    const added = run.load.latencyMs.p50 - direct.load.latencyMs.p50;
    const { p50 } = run.load.latencyMs;
    checks.push({
      target: `added p50 ≤ ${MAX_ADDED_P50_MS} ms`,
      cell: cellName(run),
      measured: `${added.toFixed(2)} ms (${p50.toFixed(2)} − ${direct.load.latencyMs.p50.toFixed(2)})`,
      met: added <= MAX_ADDED_P50_MS,
    });
  }

  for (const system of new Set(runs.map((r) => r.system))) {
    const own = runs.filter((r) => r.system === system);
    const wrong = own.reduce((sum, r) => sum + wrongAnswers(r.load), 0);
    const checked = own.reduce((sum, r) => sum + r.load.checked, 0);
    checks.push({
      target: '0 errors, non-2xx or wrong lengths',
      cell: `${system}, all cells`,
      measured: `${int(wrong)} of ${int(checked)} checked`,
      met: wrong === 0 && checked > 0,
    });
  }
  return checks;
}
