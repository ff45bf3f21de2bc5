import { readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks of USER_HZ, which is 100 on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) `pid` has used so far; null where /proc is not available. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14 and stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Starts a CPU meter on `pid`; the returned function says how many cores it kept busy on average since. */
export function meterCpu(pid: number): () => number | null {
  const startCpu = cpuSeconds(pid);
  const startedAt = performance.now();
  return () => {
    const endCpu = cpuSeconds(pid);
    if (startCpu === null || endCpu === null) return null;
    return (endCpu - startCpu) / ((performance.now() - startedAt) / 1000);
  };
}
