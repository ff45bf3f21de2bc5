/**
 * A warm `react` of a trivial reactor beside a plain token read, over HTTP at one connection (one call at a time), on
 * one engine. The target (issue 40): react at most 5 ms p50 and 20 ms p99.
 */
import { loadavg } from 'node:os';
import { startEngine } from '../../electron/engine';
import { timed } from './code-runtime-bench';
import { percentile } from './load';
import { verdict } from './page-measures';
import type { SuiteResult } from './report';

export interface ReactorBenchOptions {
  /** Rounds of CALLS calls each, react and token read in turn. */
  rounds: number;
  log(line: string): void;
}

const CALLS = 2_000;
const WARMUP_CALLS = 200;
const TARGET_P50_MS = 5;
const TARGET_P99_MS = 20;
const CODE = 'module.exports = async (req) => ({ raw: { echoed: req.args.card } });';

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function runReactorBench({ rounds, log }: ReactorBenchOptions): Promise<SuiteResult> {
  const engine = await startEngine({ port: 0, echoPort: null, dataDir: null, log: () => undefined });
  const keys = engine.bootstrapKeys!;
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${engine.url}${path}`, {
      method,
      headers: { 'BT-API-KEY': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  let wrong = 0;
  const measured = { react: [] as number[], read: [] as number[] };
  try {
    const token = await call('POST', '/tokens', keys.private.key, { type: 'card_number', data: '4242424242424242' });
    const reactor = await call('POST', '/reactors', keys.management.key, { name: 'bench', code: CODE });
    const react = async () => {
      const res = await call('POST', `/reactors/${String(reactor.body.id)}/react`, keys.private.key, { args: { card: `{{ ${String(token.body.id)} | json: '$' }}` } });
      if (res.status !== 200 || (res.body.raw as { echoed?: string } | undefined)?.echoed !== '4242424242424242') wrong++;
    };
    const read = async () => {
      if ((await call('GET', `/tokens/${String(token.body.id)}`, keys.private.key)).status !== 200) wrong++;
    };
    for (let n = 1; n <= rounds; n++) {
      log(`reactors: round ${n} of ${rounds}`);
      measured.react.push(...(await timed(CALLS, WARMUP_CALLS, react)));
      measured.read.push(...(await timed(CALLS, WARMUP_CALLS, read)));
    }
  } finally {
    await engine.stop();
  }
  if (wrong > 0) throw new Error(`reactors: ${wrong} call(s) answered wrongly`);
  const reactMs = [...measured.react].sort((a, b) => a - b);
  const readMs = [...measured.read].sort((a, b) => a - b);
  const met = percentile(reactMs, 50) <= TARGET_P50_MS && percentile(reactMs, 99) <= TARGET_P99_MS;
  const row = (what: string, ms: number[], target: string) => [what, ms.length, round(percentile(ms, 50)), round(percentile(ms, 99)), round(ms[ms.length - 1]), target];
  return {
    suite: 'reactors',
    title: 'Reactors, a warm react of a trivial reactor beside a token read',
    baselineSystem: '',
    measurements: [],
    tables: [
      {
        title: `One connection, one call at a time, ${rounds} round(s) of ${CALLS} calls after ${WARMUP_CALLS} unmeasured`,
        columns: ['call', 'calls', 'p50 ms', 'p99 ms', 'slowest ms', 'target'],
        rows: [
          row('GET /tokens/{id} (baseline)', readMs, ''),
          row('POST /reactors/{id}/react, one expression detokenized', reactMs, `≤ ${TARGET_P50_MS} ms p50, ≤ ${TARGET_P99_MS} ms p99: ${verdict(met)}`),
        ],
      },
    ],
    notes: [
      `The reactor: \`${CODE}\`; the client runs in the engine's process (fetch, keep-alive), in turn with the token reads.`,
      'The worker loads the source through tsx here; a call crosses the same thread boundary and runs the same code as in the build.',
      `Load average ${loadavg()[0].toFixed(2)} when the measuring ended.`,
    ],
    data: { reactMs: measured.react, readMs: measured.read },
  };
}
