import autocannon from 'autocannon';
import { meterCpu, type CpuReading } from './process-cpu';

/**
 * What a load run sends and how it judges each answer. `next` builds one request and notes in `context` what its
 * response must show; `check` reads that note. autocannon gives every connection its own context, and with no
 * pipelining a connection has one request in flight, so the note always belongs to the response being checked.
 */
export interface RequestPlan {
  next(context: Record<string, unknown>): { method: 'GET' | 'POST'; path: string; body?: string };
  check(status: number, body: string, context: Record<string, unknown>): boolean;
}

export interface LoadOptions {
  /** Several servers of one service (replicas): connection i goes to url[i mod n], round robin as a balancer spreads them. */
  url: string | string[];
  connections: number;
  durationSeconds: number;
  /** An unmeasured run first (JIT, SQLite page cache, keep-alive sockets); its answers are checked too. */
  warmupSeconds: number;
  headers?: Record<string, string>;
  /** The process answering, to meter its CPU during the measured run. */
  serverPid: number;
  /** More processes to meter during the measured run, by name (another replica, the database server). */
  metered?: Record<string, CpuReading>;
}

export interface LoadResult {
  requestsPerSecond: number;
  /** Latency of every response in the measured run, in milliseconds (autocannon's own histogram keeps whole ms). */
  latencyMs: { p50: number; p99: number };
  responses: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Responses that `check` inspected (warm-up included) and how many it rejected. */
  checked: number;
  checkFailures: number;
  durationSeconds: number;
  /**
   * Cores kept busy during the measured run (1 = one core all the time), by the server and by the load generator
   * (this process). A server well under 1 at 10 connections was starved (a shared machine) or waiting, not CPU-bound.
   */
  serverCores: number | null;
  loadGeneratorCores: number | null;
  /** Cores kept busy by each of the options' `metered`, by its name. */
  meteredCores?: Record<string, number | null>;
  /** When this is the median of several rounds (see rounds.ts): every round's req/s, in the order they ran. */
  roundsRequestsPerSecond?: number[];
}

/** The nearest-rank percentile `p` (0–100) of values sorted ascending. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs `plan` against `options.url` with autocannon: a warm-up, then the measured run. */
export async function runLoad(plan: RequestPlan, options: LoadOptions): Promise<LoadResult> {
  let checked = 0;
  let checkFailures = 0;
  const requests: autocannon.Request[] = [
    {
      setupRequest: (request, context) => ({ ...request, ...plan.next(context) }),
      onResponse: (status, body, context) => {
        checked++;
        if (!plan.check(status, body, context)) checkFailures++;
      },
    },
  ];
  const common = { url: options.url, connections: options.connections, headers: options.headers, requests, timeout: 10 };
  if (options.warmupSeconds > 0) await autocannon({ ...common, duration: options.warmupSeconds });

  const latencies: number[] = [];
  const serverCpu = meterCpu(options.serverPid);
  const ownCpu = meterCpu(process.pid);
  const meters = Object.entries(options.metered ?? {}).map(([name, reading]) => [name, meterCpu(reading)] as const);
  const run = autocannon({ ...common, duration: options.durationSeconds });
  run.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const result = await run;
  const serverCores = serverCpu();
  const loadGeneratorCores = ownCpu();
  const meteredCores = options.metered && Object.fromEntries(meters.map(([name, meter]) => [name, meter()]));
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: result.requests.total / result.duration,
    latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99) },
    responses: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    checked,
    checkFailures,
    durationSeconds: result.duration,
    serverCores,
    loadGeneratorCores,
    ...(meteredCores && { meteredCores }),
  };
}
