import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks of USER_HZ, which is 100 on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

/** CPU seconds so far of something metered (a process, a tree of them); null where /proc cannot tell. */
export type CpuReading = () => number | null;

/** The fields of /proc/<pid>/stat after the parenthesised command name (state is field 3, so index 0 here). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) `pid` has used so far; null where /proc is not available. */
export function cpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  // utime is field 14 and stime 15.
  return fields && (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds of `pid` and every process under it, those that ended included: a PostgreSQL server is a postmaster with
 * a backend per connection and its background workers, and its cost is all of theirs. A child that ended counts in
 * its parent's cutime/cstime once reaped, so the sum does not drop when a backend exits.
 */
export function treeCpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields) return null;
  // cutime and cstime (fields 16 and 17): the children this process has waited for.
  let total = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // Field 4, the parent's id.
    if (statFields(Number(entry))?.[1] !== String(pid)) continue;
    total += treeCpuSeconds(Number(entry)) ?? 0;
  }
  return total;
}

/** Starts a CPU meter; the returned function says how many cores it kept busy on average since. */
export function meterCpu(reading: number | CpuReading): () => number | null {
  const read = typeof reading === 'number' ? () => cpuSeconds(reading) : reading;
  const startCpu = read();
  const startedAt = performance.now();
  return () => {
    const endCpu = read();
    if (startCpu === null || endCpu === null) return null;
    return (endCpu - startCpu) / ((performance.now() - startedAt) / 1000);
  };
}
