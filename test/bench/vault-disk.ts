import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../electron/engine/vault/database';

export interface VaultDiskUsage {
  tokens: number;
  /** `tokenbench.sqlite` + `-wal` after a TRUNCATE checkpoint. */
  fileBytes: number;
  walBytes: number;
  /** Pages of the token tables and their indexes (tokens, token_search_terms). */
  tokenTableBytes: number;
  /** Pages of the request history (request_log, bounded by the history limit). */
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

/**
 * Measures a vault (the service may be running: WAL allows a second connection): checkpoint first, so the number is
 * the data, not how far the WAL has grown; then page sizes per table from SQLite's dbstat.
 */
export function measureVault(dataDir: string): VaultDiskUsage {
  const file = join(dataDir, DATABASE_FILE);
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    const pages = db
      .prepare(
        `SELECT s.tbl_name AS tbl, SUM(d.pgsize) AS bytes FROM dbstat d
         JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name`,
      )
      .all() as { tbl: string; bytes: number }[];
    const bytesOf = (tables: string[]) => pages.filter((p) => tables.includes(p.tbl)).reduce((sum, p) => sum + p.bytes, 0);
    const walBytes = sizeOf(`${file}-wal`);
    return {
      tokens: (db.prepare('SELECT COUNT(*) AS n FROM tokens').get() as { n: number }).n,
      fileBytes: sizeOf(file) + walBytes,
      walBytes,
      tokenTableBytes: bytesOf(TOKEN_TABLES),
      historyBytes: bytesOf(['request_log']),
      checkpointed: result.busy === 0,
    };
  } finally {
    db.close();
  }
}
