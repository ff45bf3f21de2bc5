import { mkdirSync, mkdtempSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Makes sure `dir` exists and takes new files, or throws an error that names it and the OS's reason. Run before any
 * file of the data folder is opened, so an unusable folder stops a start at once, in words a user can act on.
 */
export function prepareDataDir(dir: string): void {
  try {
    makeDir(dir);
    // An existing path can still refuse files (a regular file, a dangling link, /proc), and SQLite's own message
    // names neither the folder nor the reason: an entry is made and removed here to get the OS's answer.
    rmdirSync(mkdtempSync(join(dir, '.tokenbench-probe-')));
  } catch (error) {
    throw new Error(`Cannot use ${dir} as the data folder: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * `mkdir -p`, private to this user. Node's own recursive mkdir retries forever where a parent exists yet refuses a
 * new name with ENOENT (anywhere under /proc), so here each level is tried at most twice.
 */
function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    makeDir(parent);
    mkdirSync(dir, { mode: 0o700 });
  }
}
