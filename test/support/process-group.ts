import { execFileSync } from 'node:child_process';

/** Whether any process of the group is left (a test starts what it signals in a group of its own). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The ids of a process's children. */
export const childrenOf = (pid: number): number[] =>
  execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);

/** A process's command line, as `ps` shows it. */
export const commandOf = (pid: number): string => execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
