import type pg from 'pg';
import { Sealer } from '../crypto';
import { recordKeyCheck, refuseOtherKey } from '../vault-key';
import { openPostgresPool } from './connection';
import { databaseNamed } from './database-url';
import { Leadership } from './leadership';
import { migratePostgres } from './migrate';
import { NotifyChannel } from './notify-channel';
import { PostgresUnits } from './unit-driver';

/** The duty the leader runs: the engine's periodic jobs. */
const HOUSEKEEPING = 'housekeeping';

/** The database would not answer (down, refused, unknown host, login refused): said without the URL's password. */
export class DatabaseUnreachableError extends Error {}

export interface PostgresStorage {
  readonly pool: pg.Pool;
  readonly units: PostgresUnits;
  readonly sealer: Sealer;
  /** Whether this replica is the one that runs the periodic jobs (housekeeping). */
  readonly leadership: Leadership;
  /** Steps down, stops the notify connection and ends the pool. */
  close(): Promise<void>;
}

export interface PostgresStorageOptions {
  url: string;
  /** The vault's master key, always supplied: over a shared database no data folder holds a key file. */
  masterKey: Buffer;
  /** What went wrong on a connection after the start (a dropped idle connection, a failed reconnect). */
  onError?: (error: unknown) => void;
}

async function reach(pool: pg.Pool, url: string): Promise<void> {
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const password = decodeURIComponent(new URL(url).password);
    const reason = (message || code || 'no answer').split(password || '\0').join('***');
    throw new DatabaseUnreachableError(`Cannot reach the database at ${databaseNamed(url)}: ${reason}`);
  }
}

const hasSettings = async (pool: pg.Pool) => (await pool.query<{ present: boolean }>("SELECT to_regclass('settings') IS NOT NULL AS present")).rows[0].present;

/**
 * Opens the shared database a replica runs on: reaches it (one clear error if it cannot), refuses a master key other
 * than the one the vault was sealed with before writing anything, brings the schema up to date under the migrations'
 * advisory lock, keeps the key's check value (one, however many replicas start together), starts the runner with
 * the notify connection that brings other replicas' change notices (and a resync when that connection comes back), and
 * takes part in choosing the leader that runs the periodic jobs.
 */
export async function openPostgresStorage({ url, masterKey, onError = () => undefined }: PostgresStorageOptions): Promise<PostgresStorage> {
  const sealer = new Sealer(masterKey);
  const pool = openPostgresPool(url);
  pool.on('error', onError);
  const notify = new NotifyChannel(url, { onReconnect: () => units.changes.resync(), onError });
  const units = new PostgresUnits(pool);
  const leadership = new Leadership(url, HOUSEKEEPING, { onError });
  try {
    await reach(pool, url);
    if (await hasSettings(pool)) await refuseOtherKey(units, sealer, null);
    await migratePostgres(pool);
    await recordKeyCheck(units, sealer, null);
    await notify.start();
    await units.hear(notify);
    await leadership.start();
  } catch (error) {
    await leadership.stop();
    await notify.stop();
    await pool.end();
    throw error;
  }
  return {
    pool,
    units,
    sealer,
    leadership,
    async close() {
      await leadership.stop();
      await notify.stop();
      await pool.end();
    },
  };
}
