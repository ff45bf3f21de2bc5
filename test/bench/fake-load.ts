import type { LoadResult } from './load';

/** A load run's result as the tests of report and target logic need it: clean unless `faults` say otherwise. */
export function fakeLoad(requestsPerSecond: number, faults: Partial<LoadResult> = {}): LoadResult {
  return {
    requestsPerSecond,
    latencyMs: { p50: 1, p99: 2 },
    responses: 1000,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    checked: 1000,
    checkFailures: 0,
    durationSeconds: 1,
    serverCores: 1,
    loadGeneratorCores: 0.5,
    ...faults,
  };
}
