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

/** One process of a tree as one pass over /proc saw it, in clock ticks. */
interface SeenProcess {
  /** Its start time since boot: with the pid, what tells it from a later process given the same pid. */
  started: string;
  /** utime + stime. */
  own: number;
  /** cutime + cstime: the children it has waited for, with theirs. */
  reaped: number;
}

/** `pid` and every process under it, from one listing of /proc; null when `pid` is gone. */
function seeTree(pid: number): Map<number, SeenProcess> | null {
  const children = new Map<number, number[]>();
  const seen = new Map<number, SeenProcess>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    // Gone since the listing: its time is in its parent's cutime, which the second pass finds unchanged or not.
    if (!fields) continue;
    const parent = Number(fields[1]);
    const siblings = children.get(parent);
    if (siblings) siblings.push(Number(entry));
    else children.set(parent, [Number(entry)]);
    // utime, stime, cutime, cstime are fields 14 to 17; starttime is field 22.
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    seen.set(Number(entry), { started: fields[19], own: utime + stime, reaped: cutime + cstime });
  }
  if (!seen.has(pid)) return null;
  const tree = new Map<number, SeenProcess>();
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    tree.set(next, seen.get(next)!);
    pending.push(...(children.get(next) ?? []));
  }
  return tree;
}

/**
 * Whether no process of `first` was reaped between the two passes: each still there, the same process, having waited
 * for no more children. A child reaped during a pass is either read and in its parent's cutime (counted twice) or
 * neither (lost); either way the pass after differs, so agreeing passes count every child once.
 */
function sameReaping(first: Map<number, SeenProcess>, second: Map<number, SeenProcess>): boolean {
  for (const [pid, before] of first) {
    const after = second.get(pid);
    if (after?.started !== before.started || after.reaped !== before.reaped) return false;
  }
  return true;
}

/** Passes over /proc before a reading of a tree whose children keep ending is given up (null). */
const TREE_PASSES = 20;

/**
 * CPU seconds of `pid` and every process under it, those that ended included: a PostgreSQL server is a postmaster with
 * a backend per connection and its background workers, and its cost is all of theirs. A child that ended counts in
 * its parent's cutime/cstime once reaped, so the sum does not drop when a backend exits. The processes are read one by
 * one, so a child reaped meanwhile could count twice or not at all: two passes in a row that agree on every process's
 * reaped children make the reading; null when `pid` is gone or no two passes agree.
 */
export function treeCpuSeconds(pid: number): number | null {
  let previous = seeTree(pid);
  for (let pass = 1; previous && pass < TREE_PASSES; pass++) {
    const current = seeTree(pid);
    if (current && sameReaping(previous, current)) {
      let ticks = 0;
      for (const { own, reaped } of current.values()) ticks += own + reaped;
      return ticks / TICKS_PER_SECOND;
    }
    previous = current;
  }
  return null;
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
