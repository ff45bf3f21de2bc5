import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import type { EventOutbox } from '../../electron/engine/events/event-outbox';
import type { AnyUnitRunner } from '../../electron/engine/storage/unit';
import { freshDatabase } from './postgres-suite';

/** The two databases a store runs on: `describe.each(SIDES)` runs a store's suite on each. */
export const SIDES = ['SQLite', 'PostgreSQL'] as const;
export type Side = (typeof SIDES)[number];

/** The outbox's events after its first `before`, each as its type and the id of its `member` (`proxy`, `reactor`). */
export async function raisedSince(outbox: EventOutbox, before: number, member: string): Promise<[string, string][]> {
  return (await outbox.pending(1000)).slice(before).map(({ event }) => [event.type, (event.data[member] as { id: string }).id]);
}

/**
 * For a suite that builds the same store over either driver: an in-memory SQLite vault and a fresh, migrated
 * PostgreSQL database, opened before the suite's tests and closed after. `runner(side)` is that database's runner (a
 * PostgreSQL runner on a pool of its own each call, as another replica's), `exec` runs raw SQL there.
 */
export function storeDatabases(name: string) {
  let db: Db;
  let url: string;
  const pools: pg.Pool[] = [];
  const pool = (): pg.Pool => {
    const opened = openPostgresPool(url);
    pools.push(opened);
    return opened;
  };
  beforeAll(async () => {
    db = openDatabase({ dataDir: null });
    url = await freshDatabase(name);
    await migratePostgres(pool());
  });
  afterAll(async () => {
    db.close();
    await Promise.all(pools.map((opened) => opened.end()));
  });
  return {
    pool,
    runner: (side: Side): AnyUnitRunner => (side === 'SQLite' ? unitsOf(db) : new PostgresUnits(pool())),
    exec: async (side: Side, sql: string): Promise<void> => {
      if (side === 'SQLite') db.exec(sql);
      else await pools[0].query(sql);
    },
  };
}
