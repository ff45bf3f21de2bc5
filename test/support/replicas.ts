import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { NotifyChannel } from '../../electron/engine/storage/postgres/notify-channel';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { freshDatabase } from './postgres-suite';

/** One replica's storage: its runner on a pool of its own, hearing the others' changes on its own notify connection. */
export interface Replica {
  readonly units: PostgresUnits;
  /** Ends its notify connection from the database's side, as a network cut does; the channel reconnects by itself. */
  cutNotify(): Promise<void>;
}

/** Two replicas over one fresh, migrated PostgreSQL database, set up before the suite and taken down after it. */
export interface Replicas {
  readonly url: string;
  readonly a: Replica;
  readonly b: Replica;
  /** A pool for the suite's own statements. */
  readonly admin: pg.Pool;
}

export function twoReplicas(name: string): Replicas {
  const both = {} as { url: string; a: Replica; b: Replica; admin: pg.Pool };
  const closing: (() => Promise<void>)[] = [];
  const replica = async (label: string): Promise<Replica> => {
    // Its connections carry its name, so the suite can tell its notify connection from the other's.
    const url = `${both.url}?application_name=${label}`;
    const pool = openPostgresPool(url);
    const units = new PostgresUnits(pool);
    const channel = new NotifyChannel(url, { onReconnect: () => units.changes.resync() });
    await channel.start();
    await units.hear(channel);
    closing.push(() => channel.stop(), () => pool.end());
    return {
      units,
      async cutNotify() {
        const { rows } = await both.admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND query LIKE 'LISTEN%'",
          [label],
        );
        if (rows.length !== 1) throw new Error(`expected one notify connection of ${label}, found ${rows.length}`);
        await both.admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      },
    };
  };
  beforeAll(async () => {
    both.url = await freshDatabase(name);
    both.admin = openPostgresPool(both.url);
    await migratePostgres(both.admin);
    both.a = await replica('replica-a');
    both.b = await replica('replica-b');
  });
  afterAll(async () => {
    for (const close of closing) await close();
    await both.admin.end();
  });
  return both;
}
