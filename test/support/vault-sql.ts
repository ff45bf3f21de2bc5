import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { postgresVaultOf, type TestEngine } from './test-engine';

/**
 * Runs one statement, as a second connection would, on a test engine's vault, or on the one kept for the data folder
 * `vault` (its engine stopped or not): its SQLite file, or under the engine-on-postgres project the PostgreSQL database
 * that stands for it. Parameters are `?`; answers the rows a query returns (none for a write).
 */
export async function vaultSql<Row = Record<string, unknown>>(vault: string | TestEngine, sql: string, params: unknown[] = []): Promise<Row[]> {
  const dataDir = typeof vault === 'string' ? vault : vault.dataDir;
  const url = typeof vault === 'string' ? postgresVaultOf(vault) : (vault.databaseUrl ?? undefined);
  if (url === undefined) {
    if (dataDir === null) throw new Error('this engine keeps its vault in memory: no second connection can read it');
    const db = new Database(join(dataDir, DATABASE_FILE));
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as Row[];
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let n = 0;
    return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Row[];
  } finally {
    await client.end();
  }
}
