import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { type AnyUnitRunner, query, tx } from '../../electron/engine/storage/unit';
import { freshDatabase } from './postgres-suite';
import { tempDir } from './test-engine';

export const SIDES = ['sqlite', 'postgres'] as const;
export type Side = (typeof SIDES)[number];

/** Both databases of a store's suite, set up before its tests: a SQLite file and a fresh PostgreSQL database. */
export interface BothDatabases {
  /** The SQLite file, which an EventOutbox also needs to be built (its `store` runs on the unit's database). */
  db: Db;
  /** A folder of the suite's own, removed after it. */
  dir: string;
  runners: Record<Side, AnyUnitRunner>;
}

/** Sets up both databases for the suite `name` (and takes them down after it); read the answer's fields in tests. */
export function bothDatabases(name: string): BothDatabases {
  const both = {} as BothDatabases;
  let pool: pg.Pool;
  beforeAll(async () => {
    both.dir = tempDir();
    both.db = openDatabase({ dataDir: join(both.dir, 'data') });
    pool = openPostgresPool(await freshDatabase(name));
    await migratePostgres(pool);
    both.runners = { sqlite: unitsOf(both.db), postgres: new PostgresUnits(pool) };
  });
  afterAll(async () => {
    both.db.close();
    rmSync(both.dir, { recursive: true, force: true });
    await pool.end();
  });
  return both;
}

const storedEvents = query<string>('stored events', 'SELECT event FROM event_outbox ORDER BY seq', { pluck: true });

/** The types of the events a runner's database holds in its outbox, oldest first. */
export async function storedEventTypes(runner: AnyUnitRunner): Promise<string[]> {
  return (await runner.read(() => tx.all(storedEvents))).map((event) => (JSON.parse(event) as { type: string }).type);
}
