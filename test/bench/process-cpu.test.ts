/**
 * The CPU meter of a process tree (a PostgreSQL server and its backends): every process's time counted once, those
 * that ended included, so a reading never drops below the one before.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cpuSeconds, treeCpuSeconds } from './process-cpu';

/** Iterations of a shell loop in each short-lived subshell: some tens of milliseconds of CPU, so several readings see it. */
const SUBSHELL_LOOPS = 10_000;

describe('treeCpuSeconds', () => {
  /** Burns `ms` of its own CPU time (not wall time: a busy machine must not shorten it), then says so. */
  const burn = (ms: number, then: string) => `${process.execPath} -e 'while (process.cpuUsage().user < ${ms * 1000}); ${then}'`;

  it("counts the CPU of a process's children, those that ended and those still running", async () => {
    // The shell waits for the first child (its CPU moves into the shell's cutime) and runs the second, which stays.
    const shell = spawn('sh', ['-c', `${burn(300, '')}; ${burn(300, 'console.log("idle"); setTimeout(() => {}, 30000)')}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    try {
      await new Promise<void>((done) => shell.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('idle') && done()));
      expect(cpuSeconds(shell.pid!)).toBeLessThan(0.1);
      expect(treeCpuSeconds(shell.pid!)).toBeGreaterThanOrEqual(0.6);
    } finally {
      // The whole group: the shell and the child still running.
      process.kill(-shell.pid!, 'SIGKILL');
    }
  });

  it('never drops while children keep ending and being reaped between and during readings', () => {
    // One short CPU-bound subshell after another, each waited for by the shell: its time moves into the shell's cutime.
    const shell = spawn('sh', ['-c', `while :; do (i=0; while [ $i -lt ${SUBSHELL_LOOPS} ]; do i=$((i+1)); done); done`], {
      stdio: 'ignore',
      detached: true,
    });
    try {
      const readings: (number | null)[] = [];
      const until = performance.now() + 2_000;
      while (performance.now() < until) readings.push(treeCpuSeconds(shell.pid!));
      const drops = readings.flatMap((reading, i) => (i > 0 && reading! < readings[i - 1]! ? [`${readings[i - 1]} → ${reading}`] : []));
      expect(readings.filter((reading) => reading === null)).toEqual([]);
      expect(drops).toEqual([]);
      expect(readings.at(-1)!).toBeGreaterThan(readings[0]! + 0.1);
    } finally {
      process.kill(-shell.pid!, 'SIGKILL');
    }
  });
});
