import type { LoadResult } from './load';

/**
 * One figure out of several rounds of the same run: the round with the median req/s, so its latency and CPU belong
 * to the same run as its throughput. On shared machines a system's speed moves within the hour; rounds interleaved
 * across systems and a median keep one slow stretch from deciding a comparison. Wrong answers count from every round:
 * one bad response in any round must show.
 */
export function medianRound(rounds: readonly LoadResult[]): LoadResult {
  if (rounds.length === 0) throw new Error('medianRound needs at least one round');
  const byRate = [...rounds].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const median = byRate[(byRate.length - 1) >> 1];
  const sum = (field: 'errors' | 'timeouts' | 'non2xx' | 'checked' | 'checkFailures') =>
    rounds.reduce((total, round) => total + round[field], 0);
  return {
    ...median,
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non2xx: sum('non2xx'),
    checked: sum('checked'),
    checkFailures: sum('checkFailures'),
    roundsRequestsPerSecond: rounds.map((round) => round.requestsPerSecond),
  };
}

/**
 * Runs every system in turn, `count` times over, every other round in the reverse order: a system never always runs
 * right after the same one (two systems may share a process, the second inheriting the first's garbage and backlog).
 * Returns each system's results (in `systems` order) by round.
 */
export async function inRounds<S, R>(count: number, systems: readonly S[], run: (system: S, round: number) => Promise<R>): Promise<R[][]> {
  const results = systems.map((): R[] => []);
  for (let round = 1; round <= count; round++) {
    const order = [...systems.entries()];
    if (round % 2 === 0) order.reverse();
    for (const [i, system] of order) results[i].push(await run(system, round));
  }
  return results;
}
