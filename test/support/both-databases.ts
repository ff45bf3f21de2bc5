import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { EventOutbox } from '../../electron/engine/events/event-outbox';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { type AnyUnitRunner, query, tx } from '../../electron/engine/storage/unit';
import { freshDatabase } from './postgres-suite';
import { tempDir } from './test-engine';

/** The two databases a store runs on: `describe.each(SIDES)` runs a store's suite on each. */
export const SIDES = ['SQLite', 'PostgreSQL'] as const;
export type Side = (typeof SIDES)[number];

/** Both databases of a store's suite, set up before its tests: read its fields in tests, not at module level. */
export interface BothDatabases {
  /** The SQLite file. */
  db: Db;
  /** A folder of the suite's own, removed after it. */
  dir: string;
  /** Each side's runner, one for the whole suite. */
  runners: Record<Side, AnyUnitRunner>;
  /** A runner of that side; for PostgreSQL a new one on a pool of its own each call, as another replica's. */
  runner(side: Side): AnyUnitRunner;
  /** A new pool to the PostgreSQL database, closed after the suite. */
  pool(): pg.Pool;
  /** Runs raw SQL on that side's database. */
  exec(side: Side, sql: string): Promise<void>;
  /** Runs `work` while that side's outbox table is away, so that any event stored fails as a write to a full disk would. */
  withoutOutbox(side: Side, work: () => Promise<void>): Promise<void>;
}

/** Sets up a SQLite file and a fresh, migrated PostgreSQL database for the suite `name`, and takes them down after it. */
export function bothDatabases(name: string): BothDatabases {
  let url: string;
  const pools: pg.Pool[] = [];
  const pool = (): pg.Pool => {
    const opened = openPostgresPool(url);
    pools.push(opened);
    return opened;
  };
  const both = {
    pool,
    runner: (side: Side): AnyUnitRunner => (side === 'SQLite' ? unitsOf(both.db) : new PostgresUnits(pool())),
    exec: async (side: Side, sql: string): Promise<void> => {
      if (side === 'SQLite') both.db.exec(sql);
      else await pools[0].query(sql);
    },
    withoutOutbox: async (side: Side, work: () => Promise<void>): Promise<void> => {
      await both.exec(side, 'ALTER TABLE event_outbox RENAME TO event_outbox_aside');
      try {
        await work();
      } finally {
        await both.exec(side, 'ALTER TABLE event_outbox_aside RENAME TO event_outbox');
      }
    },
  } as BothDatabases;
  beforeAll(async () => {
    both.dir = tempDir();
    both.db = openDatabase({ dataDir: join(both.dir, 'data') });
    url = await freshDatabase(name);
    await migratePostgres(pool());
    both.runners = { SQLite: unitsOf(both.db), PostgreSQL: new PostgresUnits(pools[0]) };
  });
  afterAll(async () => {
    both.db.close();
    rmSync(both.dir, { recursive: true, force: true });
    await Promise.all(pools.map((opened) => opened.end()));
  });
  return both;
}

const storedEvents = query<string>('stored events', 'SELECT event FROM event_outbox ORDER BY seq', { pluck: true });

/** The types of the events a runner's database holds in its outbox, oldest first. */
export async function storedEventTypes(runner: AnyUnitRunner): Promise<string[]> {
  return (await runner.read(() => tx.all(storedEvents))).map((event) => (JSON.parse(event) as { type: string }).type);
}

/** The outbox's events after its first `before`, each as its type and the id of its `member` (`proxy`, `reactor`). */
export async function raisedSince(outbox: EventOutbox, before: number, member: string): Promise<[string, string][]> {
  return (await outbox.pending(1000)).slice(before).map(({ event }) => [event.type, (event.data[member] as { id: string }).id]);
}
