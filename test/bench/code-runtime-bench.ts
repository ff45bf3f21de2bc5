/**
 * The code runtime's overhead on a warm pool: a one-line transform run through `CodeRuntime.run` (structured clone to
 * a worker thread, the module's body, the contract's checks, the answer back), one call at a time, beside the same
 * function called directly in this thread. The target (issue 39): at most 2 ms p50 and 10 ms p99 over the baseline.
 */
import { loadavg } from 'node:os';
import { createCodeRuntime, type CodeCall } from '../../electron/engine/code-runtime';
import { percentile } from './load';
import { verdict } from './page-measures';
import type { SuiteResult } from './report';

export interface CodeRuntimeBenchOptions {
  /** Rounds of CALLS calls each, runtime and baseline in turn. */
  rounds: number;
  log(line: string): void;
}

const CALLS = 2_000;
const WARMUP_CALLS = 200;
const TARGET_P50_MS = 2;
const TARGET_P99_MS = 10;

/** To the hundredth of a millisecond: a warm call takes a few hundredths. */
const round = (ms: number) => Math.round(ms * 100) / 100;

const CODE = 'module.exports = async (req) => ({ body: { ...req.args.body, signed: true } });';
const CALL: CodeCall = {
  code: CODE,
  runtime: { image: 'node-bt' },
  kind: 'proxy-request',
  args: {
    body: { amount: 1200, currency: 'usd', card: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 } },
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'bench' },
    method: 'POST',
    path: '/v1/charges',
    query: '',
  },
  configuration: { MERCHANT: 'bench' },
};

/** Milliseconds each of `count` sequential calls of `call` took, after `warmup` unmeasured ones. */
export async function timed(count: number, warmup: number, call: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await call();
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    ms.push(performance.now() - started);
  }
  return ms;
}

export async function runCodeRuntimeBench({ rounds, log }: CodeRuntimeBenchOptions): Promise<SuiteResult> {
  const runtime = createCodeRuntime({ engineUrl: () => 'http://127.0.0.1:9', log, poolSize: 1 });
  // The baseline: the same transform, compiled once here and called with the same argument, no thread crossed.
  const module = { exports: undefined as unknown };
  new Function('module', CODE)(module);
  const direct = module.exports as (req: unknown) => Promise<unknown>;
  const req = { args: CALL.args, configuration: CALL.configuration, bt: null };
  let wrong = 0;
  const viaRuntime = async () => {
    const outcome = await runtime.run(CALL);
    if (!outcome.ok || (outcome.value as { body?: { signed?: boolean } }).body?.signed !== true) wrong++;
  };
  const measured = { runtime: [] as number[], direct: [] as number[] };
  try {
    for (let round = 1; round <= rounds; round++) {
      log(`code-runtime: round ${round} of ${rounds}`);
      measured.runtime.push(...(await timed(CALLS, WARMUP_CALLS, viaRuntime)));
      measured.direct.push(...(await timed(CALLS, WARMUP_CALLS, () => direct(req))));
    }
  } finally {
    await runtime.close();
  }
  if (wrong > 0) throw new Error(`code-runtime: ${wrong} call(s) through the runtime did not answer the transform's body`);
  const sorted = (ms: number[]) => [...ms].sort((a, b) => a - b);
  const runtimeMs = sorted(measured.runtime);
  const directMs = sorted(measured.direct);
  const p = (ms: number[], q: number) => percentile(ms, q);
  const overheadP50 = p(runtimeMs, 50) - p(directMs, 50);
  const overheadP99 = p(runtimeMs, 99) - p(directMs, 99);
  const met = overheadP50 <= TARGET_P50_MS && overheadP99 <= TARGET_P99_MS;
  const row = (what: string, ms: number[], target: string) => [what, ms.length, round(p(ms, 50)), round(p(ms, 99)), round(ms[ms.length - 1]), target];
  return {
    suite: 'code-runtime',
    title: 'Code runtime, a one-line transform on a warm pool',
    baselineSystem: '',
    measurements: [],
    tables: [
      {
        title: `One call at a time, ${rounds} round(s) of ${CALLS} calls after ${WARMUP_CALLS} unmeasured`,
        columns: ['how', 'calls', 'p50 ms', 'p99 ms', 'slowest ms', 'target'],
        rows: [
          row('direct function call in this thread (baseline)', directMs, ''),
          row(
            'CodeRuntime.run: node-bt request transform in a pooled worker',
            runtimeMs,
            `overhead ≤ ${TARGET_P50_MS} ms p50, ≤ ${TARGET_P99_MS} ms p99: ${round(overheadP50)} / ${round(overheadP99)} ms, ${verdict(met)}`,
          ),
        ],
      },
    ],
    notes: [
      `The transform: \`${CODE}\`, given a ${JSON.stringify(CALL.args).length}-byte request.`,
      'The worker loads the source through tsx here; a call crosses the same thread boundary and runs the same code as in the build.',
      `Load average ${loadavg()[0].toFixed(2)} when the measuring ended.`,
    ],
    data: { runtimeMs: measured.runtime, directMs: measured.direct },
  };
}
