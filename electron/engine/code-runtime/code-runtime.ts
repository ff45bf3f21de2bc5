import type { CodeCall, CodeOutcome, CodeRuntime, RuntimeOptions } from './code-call';
import { DEFAULT_LOG_LIMITS, type LogLimits } from './log-capture';
import { WorkerPool } from './worker-pool';
import { startCodeWorker } from './worker-script';

export interface CodeRuntimeOptions {
  /** The engine's base URL, for `bt` and `applicationOptions.environment` (known once the engine listens). */
  engineUrl: () => string;
  /** The engine's log: a worker replaced or unable to start. Never code's own output, which may hold plaintext. */
  log: (line: string) => void;
  /** Workers kept warm (default 2). */
  poolSize?: number;
  /** Workers at most, running or idle (default 8): invocations beyond wait for one. */
  maxWorkers?: number;
  /** Wall-clock limit of a node-bt invocation (default 30 s, the vendor's limit for synchronous calls). */
  nodeBtTimeoutMs?: number;
  /** Old-generation heap of a worker, in MB (default 256). */
  heapMb?: number;
  logLimits?: LogLimits;
  /** A build of these sources (out/main) whose worker script a source run loads instead of compiling its own. */
  builtWorkers?: string;
}

export const NODE_BT_TIMEOUT_MS = 30_000;
/** node22's `runtime.timeout` when none is given, in seconds (vendor-surfaces.md §2.6). */
export const NODE22_DEFAULT_TIMEOUT_S = 10;
export const DEFAULT_HEAP_MB = 256;

/** How long an invocation may run: node-bt has the vendor's fixed limit, node22 its own `timeout`. */
function timeoutMs(runtime: RuntimeOptions, nodeBtMs: number): number {
  return runtime.image === 'node22' ? (runtime.timeout ?? NODE22_DEFAULT_TIMEOUT_S) * 1000 : nodeBtMs;
}

/**
 * The code runtime of code transforms and reactors: each invocation runs in a worker thread from a warm pool, bounded
 * in time and heap, and sees nothing of the engine but its call's arguments (vendor-surfaces.md §2.4–2.7).
 */
export function createCodeRuntime(options: CodeRuntimeOptions): CodeRuntime {
  const heapMb = options.heapMb ?? DEFAULT_HEAP_MB;
  const poolSize = options.poolSize ?? 2;
  const pool = new WorkerPool({
    size: poolSize,
    max: Math.max(poolSize, options.maxWorkers ?? 8),
    heapMb,
    start: (limits) => startCodeWorker(limits, options.builtWorkers),
    log: options.log,
  });
  const nodeBtMs = options.nodeBtTimeoutMs ?? NODE_BT_TIMEOUT_MS;
  const logLimits = options.logLimits ?? DEFAULT_LOG_LIMITS;
  return {
    async run(call: CodeCall): Promise<CodeOutcome> {
      const started = performance.now();
      const { result, logs } = await pool.run({ ...call, engineUrl: options.engineUrl(), logLimits }, call.timeoutMs ?? timeoutMs(call.runtime, nodeBtMs));
      const durationMs = performance.now() - started;
      return result.ok ? { ok: true, value: result.value, logs, durationMs } : { ok: false, error: result.error, logs, durationMs };
    },
    close: () => pool.close(),
  };
}
