import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { historyBytes, startFuzzBench, type FuzzBench } from './fuzz-bench';
import { expectNoCanaryKept, FUZZ_PROPERTIES } from './properties';

/**
 * The share of `npm run fuzz` that runs in `npm test`: every property, a few cases each, from a fixed seed, so a
 * regression on the ground these seeds cover fails every run the same way. `npm run fuzz` explores new ground.
 */
const RUNS = Number(process.env.FUZZ_SHARE_RUNS ?? 200);
const SEED = 20261126;

let bench: FuzzBench;
beforeAll(async () => {
  bench = await startFuzzBench();
});
afterAll(() => bench.stop());

describe(`the fuzz properties, ${RUNS} cases each from seed ${SEED}`, () => {
  for (const property of FUZZ_PROPERTIES) {
    it(property.name, async () => {
      await fc.assert(property.build(bench), { numRuns: RUNS, seed: SEED });
    }, 120_000);
  }

  it("keeps the canary's plaintext out of history's files and the log", async () => {
    expectNoCanaryKept(bench, await historyBytes(bench));
  });
});
