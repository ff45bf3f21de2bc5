import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The data folder holds the vault, the key that opens it and the request history: only its owner may read any of it,
 * whatever the umask or an earlier version left behind.
 */

/** What SQLite keeps beside a database file: its rollback journal, or its WAL and the WAL's index. */
export const SQLITE_COMPANION_SUFFIXES = ['-journal', '-wal', '-shm'] as const;

const OTHERS = 0o077;

/** Takes group and other permissions off `path`; refuses, naming the fix, when that is not allowed. */
function restrictToOwner(path: string, what: string): void {
  const mode = statSync(path).mode & 0o777;
  if ((mode & OTHERS) === 0) return;
  try {
    chmodSync(path, mode & ~OTHERS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(
      `The ${what} ${path} can be read by other users (mode ${mode.toString(8)}) and could not be restricted to its owner (${code}): ` +
        `run chmod go-rwx on it, or choose another data folder`,
      { cause: error },
    );
  }
}

/**
 * Creates the data folder owner-only, or restricts an existing one that others can read, and makes sure it takes new
 * files. Run before any file of it is opened, so an unusable folder stops a start at once, in words a user can act on.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    makeDir(dir);
    // An existing path can still refuse files (a regular file, a dangling link, /proc), and SQLite's own message
    // names neither the folder nor the reason: an entry is made and removed here to get the OS's answer.
    rmdirSync(mkdtempSync(join(dir, '.tokenbench-probe-')));
  } catch (error) {
    throw new Error(`Cannot use ${dir} as the data folder: ${(error as Error).message}`, { cause: error });
  }
  restrictToOwner(dir, 'data folder');
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

/** `file` restricted to its owner when it exists. */
export function ensurePrivateFileIfPresent(file: string): void {
  if (existsSync(file)) restrictToOwner(file, 'file');
}

/**
 * Creates a SQLite database file owner-only before SQLite opens it (SQLite gives its journal and WAL the database
 * file's mode), and restricts the file and any journal or WAL it already has.
 */
export function ensurePrivateDatabaseFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) ensurePrivateFileIfPresent(file + suffix);
}
