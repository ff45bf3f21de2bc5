import type { HistoryWorkerData } from './history/history-messages';
import type { Sealer } from './storage/crypto';
import { openDatabase, type Db } from './storage/database';
import { openPostgresStorage, type PostgresStorageOptions } from './storage/postgres/open-storage';
import { whileStarting } from './storage/postgres/start-lock';
import type { Leadership } from './storage/postgres/leadership';
import type { PostgresUnits } from './storage/postgres/unit-driver';
import { unitsOf } from './storage/sqlite/unit-driver';
import type { UnitRunner } from './storage/unit';
import { recordKeyCheck, unlockVault } from './storage/vault-key';
import { tenantIdOf } from './tenant/tenant-id';

interface Opened {
  readonly sealer: Sealer;
  readonly tenantId: string;
  /**
   * Where the history worker keeps the history (`RequestLog.start`): the shared database, with this replica's name on
   * its change channel; empty: the data folder's own file.
   */
  readonly historyDatabase: Pick<HistoryWorkerData, 'databaseUrl' | 'origin'>;
  /** Which replica runs the periodic jobs (`Housekeeping`); null where this process is the database's only one. */
  readonly leader: Leadership | null;
  /**
   * Runs the start's one-time writes (the seed, the first-start keys) with the other replicas' starts waiting, each
   * then reading what this one wrote; at once where this process is the database's only one.
   */
  starting<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The data folder's SQLite file (in memory without one): every unit runs over its one connection. */
export interface SqliteEngineStorage extends Opened {
  readonly db: Db;
  readonly units: UnitRunner;
}

/** A shared PostgreSQL database, which several replicas may open at once. */
export interface PostgresEngineStorage extends Opened {
  readonly db: null;
  readonly units: PostgresUnits;
}

export type EngineStorage = SqliteEngineStorage | PostgresEngineStorage;

export interface SqliteStorageOptions {
  dataDir: string | null;
  nativeBinding?: string;
  /** The vault's master key from the caller; default: the data folder's key file, made on a first start. */
  masterKey?: Buffer;
}

/**
 * Opens the engine's database with its master key checked and its tenant id known: the one start path, whichever
 * database it is. Either way a wrong key is refused before anything is written.
 */
export function openEngineStorage(where: SqliteStorageOptions): Promise<SqliteEngineStorage>;
export function openEngineStorage(where: PostgresStorageOptions): Promise<PostgresEngineStorage>;
export async function openEngineStorage(where: SqliteStorageOptions | PostgresStorageOptions): Promise<EngineStorage> {
  if ('url' in where) {
    const { units, sealer, leadership, close } = await openPostgresStorage(where);
    try {
      const starting = <T>(work: () => Promise<T>) => whileStarting(where.url, work);
      return { db: null, units, sealer, tenantId: await tenantIdOf(units), historyDatabase: { databaseUrl: where.url, origin: units.origin }, leader: leadership, starting, close };
    } catch (error) {
      await close();
      throw error;
    }
  }
  const { dataDir, nativeBinding, masterKey } = where;
  let sealer!: Sealer;
  const db = openDatabase({ dataDir, nativeBinding, beforeMigrations: (opened) => (sealer = unlockVault(opened, dataDir, masterKey)) });
  const units = unitsOf(db);
  try {
    await recordKeyCheck(units, sealer, dataDir);
    const starting = <T>(work: () => Promise<T>) => work();
    return { db, units, sealer, tenantId: await tenantIdOf(units), historyDatabase: {}, leader: null, starting, close: async () => { db.close(); } };
  } catch (error) {
    db.close();
    throw error;
  }
}
