import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeRuntime } from '../../electron/engine/code-runtime';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { failureOf, runCode, valueOf } from './calls';

/*
 * What bounds code: a wall-clock limit that terminates it, a heap limit, its own thread and memory, a bounded log, and
 * a pool that stays warm when a worker is lost. Real worker threads throughout.
 */

const LOOP = `module.exports = async () => { console.log('looping'); for (;;) {} };`;
const lines: string[] = [];
const runtime = createCodeRuntime({
  engineUrl: () => 'http://127.0.0.1:9',
  log: (line) => lines.push(line),
  poolSize: 1,
  nodeBtTimeoutMs: 700,
  heapMb: 48,
  logLimits: { lines: 5, chars: 200 },
});
afterAll(() => runtime.close());

describe('the time limit', () => {
  it('terminates node-bt code that never yields, keeps its log so far, and the pool recovers', async () => {
    const outcome = await runCode(runtime, LOOP);
    expect(failureOf(outcome)).toEqual({
      kind: 'timeout',
      status: 408,
      detail: 'Code Timed Out',
      errors: { error: ['The code ran longer than its limit of 0.7 s and was stopped'] },
    });
    expect(outcome.logs.map((log) => log.message)).toEqual(['looping']);
    expect(lines).toContainEqual(expect.stringContaining('its worker was replaced'));
    expect(valueOf(await runCode(runtime, 'module.exports = async () => ({ body: "after" })'))).toEqual({ next: 'continue', body: 'after' });
  });

  it('holds up no other invocation: another worker takes it', async () => {
    const looping = runtime.run({ code: LOOP, runtime: { image: 'node22', timeout: 5 }, kind: 'reactor', args: {}, configuration: {} });
    let loopEnded = false;
    void looping.finally(() => (loopEnded = true));
    expect(valueOf(await runCode(runtime, 'module.exports = async () => ({ body: "not held up" })'))).toEqual({ next: 'continue', body: 'not held up' });
    expect(loopEnded).toBe(false);
    expect(failureOf(await looping).kind).toBe('timeout');
  });

  it("is node22's own timeout", async () => {
    const outcome = await runtime.run({ code: LOOP, runtime: { image: 'node22', timeout: 0.3 }, kind: 'reactor', args: {}, configuration: {} });
    expect(failureOf(outcome)).toMatchObject({ kind: 'timeout', status: 408, errors: { error: ['The code ran longer than its limit of 0.3 s and was stopped'] } });
  });
});

describe('the heap limit', () => {
  // Filling 48 MB can take longer than the 0.7 s above on a loaded machine: here the heap limit alone must stop it.
  const roomy = createCodeRuntime({ engineUrl: () => 'http://127.0.0.1:9', log: () => undefined, poolSize: 1, nodeBtTimeoutMs: 20_000, heapMb: 48 });
  afterAll(() => roomy.close());

  it('stops code that allocates without end, as a failure of that call only', async () => {
    const hog = `module.exports = async () => { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); };`;
    expect(failureOf(await runCode(roomy, hog))).toEqual({
      kind: 'out-of-memory',
      status: 500,
      detail: 'Reactor Runtime Error',
      errors: { error: ['The code used more memory than its limit of 48 MB'] },
    });
    expect(valueOf(await runCode(roomy, 'module.exports = async () => ({ body: "after" })'))).toEqual({ next: 'continue', body: 'after' });
  });
});

describe('isolation', () => {
  it("code sees none of the engine's memory or environment", async () => {
    (globalThis as Record<string, unknown>).engineSecret = 'key_in_the_engine';
    try {
      const code = 'module.exports = async () => ({ body: { global: typeof globalThis.engineSecret, env: Object.keys(process.env) } })';
      expect(valueOf(await runCode(runtime, code))).toEqual({ next: 'continue', body: { global: 'undefined', env: [] } });
    } finally {
      delete (globalThis as Record<string, unknown>).engineSecret;
    }
  });

  it('code that ends its process ends only its worker', async () => {
    expect(failureOf(await runCode(runtime, 'module.exports = async () => process.exit(3)'))).toMatchObject({
      kind: 'runtime-error',
      status: 500,
      errors: { error: ['The code ended its worker (exit code 3)'] },
    });
    expect(valueOf(await runCode(runtime, 'module.exports = async () => ({ body: "after" })'))).toEqual({ next: 'continue', body: 'after' });
  });

  it('module state does not carry from one invocation to the next', async () => {
    const code = 'let calls = 0; module.exports = async () => ({ body: ++calls })';
    expect(valueOf(await runCode(runtime, code))).toEqual({ next: 'continue', body: 1 });
    expect(valueOf(await runCode(runtime, code))).toEqual({ next: 'continue', body: 1 });
  });
});

describe('the log', () => {
  it('captures console and logger lines, bounded in count and size, and says how many were dropped', async () => {
    const code = `module.exports = async () => {
      console.warn('card %s', 'ending 4242');
      console.error(new Error('declined').message);
      console.log('x'.repeat(500));
      for (let i = 0; i < 20; i++) console.debug('line', i);
      return {};
    };`;
    const { logs } = await runCode(runtime, code);
    expect(logs.map(({ level, message }) => [level, message])).toEqual([
      ['warn', 'card ending 4242'],
      ['error', 'declined'],
      ['log', `${'x'.repeat(200 - 'card ending 4242'.length - 'declined'.length)}…`],
      ['warn', '20 more line(s) not kept: an invocation keeps 5 lines and 200 characters of log'],
    ]);
  });
});

describe('another client', () => {
  let t: TestEngine;
  beforeAll(async () => {
    t = await startTestEngine({ inMemory: true });
  });
  afterAll(() => t.stop());

  /** The house's bound: no request may make another client wait over a second. */
  const PROBE_BOUND_MS = 1_000;

  it(`is answered within ${PROBE_BOUND_MS} ms while a transform loops without end`, async () => {
    // The engine and this runtime share this process, as they do in the app.
    const looping = createCodeRuntime({ engineUrl: () => t.url, log: () => undefined, poolSize: 1, nodeBtTimeoutMs: 4_000 });
    try {
      const run = runCode(looping, LOOP);
      let slowest = 0;
      let probes = 0;
      let running = true;
      void run.finally(() => (running = false));
      while (running) {
        const sent = performance.now();
        const reply = await request(`${t.url}/tokens?size=1`, { headers: { 'bt-api-key': t.privateKey }, signal: AbortSignal.timeout(PROBE_BOUND_MS) });
        await reply.body.dump();
        expect(reply.statusCode).toBe(200);
        slowest = Math.max(slowest, performance.now() - sent);
        probes++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(failureOf(await run).kind).toBe('timeout');
      console.log(`${probes} probes while the transform looped, the slowest ${Math.round(slowest)} ms`);
      expect(probes).toBeGreaterThan(10);
      expect(slowest).toBeLessThan(PROBE_BOUND_MS);
    } finally {
      await looping.close();
    }
  });
});
