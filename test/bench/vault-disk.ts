import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORY_FILE } from '../../electron/engine/history/history-store';
import { DATABASE_FILE } from '../../electron/engine/storage/database';

export interface VaultDiskUsage {
  tokens: number;
  /** Everything the service keeps: `tokenbench.sqlite` with its `-wal` after a TRUNCATE checkpoint, and the history. */
  fileBytes: number;
  /** What the vault's WAL still holds after the checkpoint (0 when it finished). */
  walBytes: number;
  /** Pages of the token tables and their indexes (tokens, token_search_terms). */
  tokenTableBytes: number;
  /**
   * The request history: `history.sqlite` + its `-journal`, kept between writes (bounded by the history limit; trimmed
   * pages stay in the file for reuse).
   */
  historyBytes: number;
  /** False when the checkpoint could not finish (a reader held the WAL); the sizes then include WAL frames. */
  checkpointed: boolean;
}

const TOKEN_TABLES = ['tokens', 'token_search_terms'];

const sizeOf = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** Opens a second connection (the service may be running: WAL allows it) and folds the WAL into the file. */
function withCheckpoint<T>(file: string, read: (db: Database.Database, checkpointed: boolean) => T): T {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return read(db, result.busy === 0);
  } finally {
    db.close();
  }
}

/**
 * Measures a vault and its history: checkpoint the vault first, so the numbers are the data, not how far its WAL has
 * grown; then page sizes per table from SQLite's dbstat.
 */
export function measureVault(dataDir: string): VaultDiskUsage {
  const file = join(dataDir, DATABASE_FILE);
  const historyFile = join(dataDir, HISTORY_FILE);
  // Sizes only: the history has no WAL to fold, and opening it would create a file an engine may not have written yet.
  const historyBytes = sizeOf(historyFile) + sizeOf(`${historyFile}-journal`);
  return withCheckpoint(file, (db, checkpointed) => {
    const pages = db
      .prepare(
        `SELECT s.tbl_name AS tbl, SUM(d.pgsize) AS bytes FROM dbstat d
         JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name`,
      )
      .all() as { tbl: string; bytes: number }[];
    const walBytes = sizeOf(`${file}-wal`);
    return {
      tokens: (db.prepare('SELECT COUNT(*) AS n FROM tokens').get() as { n: number }).n,
      fileBytes: sizeOf(file) + walBytes + historyBytes,
      walBytes,
      tokenTableBytes: pages.filter((p) => TOKEN_TABLES.includes(p.tbl)).reduce((sum, p) => sum + p.bytes, 0),
      historyBytes,
      checkpointed,
    };
  });
}
