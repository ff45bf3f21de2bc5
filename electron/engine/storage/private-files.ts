import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

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
    );
  }
}

/** Creates the data folder owner-only, or restricts an existing one that others can read. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  restrictToOwner(dir, 'data folder');
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
