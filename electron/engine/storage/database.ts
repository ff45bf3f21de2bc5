import Database from 'better-sqlite3';
import { join } from 'node:path';
import { applyMigrations } from './migrations';
import { ensurePrivateDatabaseFile, ensurePrivateDir } from './private-files';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Folder for `tokenbench.sqlite`; null keeps everything in memory (throwaway runs). */
  dataDir: string | null;
  /** Path to a better-sqlite3 binary built for another ABI (Electron); tests and the CLI use the default. */
  nativeBinding?: string;
  /** Runs before the migrations, which write: what it refuses (a wrong master key) leaves the file as it was. */
  beforeMigrations?: (db: Db) => void;
}

export const DATABASE_FILE = 'tokenbench.sqlite';

/** Folds case as JavaScript does (SQLite's own lower() folds ASCII only): the search's, registered on each connection. */
export const UNICODE_LOWER = 'unicode_lower';

export function openDatabase({ dataDir, nativeBinding, beforeMigrations }: OpenDatabaseOptions): Db {
  let file = ':memory:';
  if (dataDir !== null) {
    ensurePrivateDir(dataDir);
    file = join(dataDir, DATABASE_FILE);
    ensurePrivateDatabaseFile(file);
  }
  const db = new Database(file, nativeBinding ? { nativeBinding } : {});
  // WAL + NORMAL survives a process kill (the crash tests), and a response is only sent after COMMIT returns.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // A checkpoint syncs the database file; taking one every ~40 MB of WAL instead of SQLite's ~4 MB keeps that
  // cost off most commits.
  db.pragma('wal_autocheckpoint = 10000');
  // SQLite's default page cache (2 MiB) is far smaller than a large vault; pages read once stay in this process
  // instead of being read from the OS again. A ceiling (128 MiB), not an allocation.
  db.pragma('cache_size = -131072');
  // Reads map the file instead of copying pages in with a read() each, which makes a cold random read cheaper.
  // Address space only (1 GiB), not memory; writes still go through the WAL.
  db.pragma('mmap_size = 1073741824');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.function(UNICODE_LOWER, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  try {
    beforeMigrations?.(db);
    applyMigrations(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
