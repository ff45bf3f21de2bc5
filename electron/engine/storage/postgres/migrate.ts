import type pg from 'pg';
import { checksum, pendingMigrations, type Migration } from '../migrations';
import { POSTGRES_MIGRATIONS } from './schema';

/**
 * Where a list of migrations records what it applied, and the key of the advisory lock it runs under (a bigint):
 * advisory locks are per database, so only replicas of one database wait for each other. Each list has its own, so
 * lists that number their versions apart never mix, and one list's runner never waits for another's.
 */
export interface MigrationLedger {
  table: string;
  lock: string;
}

/** The vault's ledger ("tokenbench schema" in the lock's bigint). */
export const VAULT_LEDGER: MigrationLedger = { table: 'schema_migrations', lock: '8389758372839124781' };

/**
 * Brings the database's schema up to date in one transaction under a transaction-level advisory lock: replicas that
 * start together queue on the lock, the first applies what is missing, and the others then find nothing to do. A
 * failure rolls everything back, the lock with it.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
  { table, lock }: MigrationLedger = VAULT_LEDGER,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [lock]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const { rows } = await client.query<{ version: number; checksum: string }>(`SELECT version, checksum FROM ${table}`);
    for (const m of pendingMigrations(migrations, new Map(rows.map((r) => [r.version, r.checksum])))) {
      await client.query(m.sql);
      await client.query(`INSERT INTO ${table} (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)`, [
        m.version,
        m.name,
        checksum(m),
        new Date().toISOString(),
      ]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
