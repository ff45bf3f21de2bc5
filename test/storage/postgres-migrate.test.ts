import type pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { MigrationError, type Migration } from '../../electron/engine/storage/migrations';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { POSTGRES_MIGRATIONS } from '../../electron/engine/storage/postgres/schema';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

const REPLICAS = 4;

let pools: pg.Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  pools = [];
});
const replicas = (url: string, n: number) => (pools = Array.from({ length: n }, () => openPostgresPool(url)));

describePostgres('PostgreSQL migrations', () => {
  it(`run once when ${REPLICAS} replicas start together on one fresh database, and every replica starts`, async () => {
    const url = await freshDatabase('replicas');
    // A migration that counts its runs, after the real ones: a second run would leave a second row.
    const counted: Migration = { version: 1_000_000, name: 'count the runs', sql: 'CREATE TABLE runs (n INTEGER); INSERT INTO runs VALUES (1);' };
    const results = await Promise.allSettled(replicas(url, REPLICAS).map((pool) => migratePostgres(pool, [...POSTGRES_MIGRATIONS, counted])));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const [pool] = pools;
    expect((await pool.query('SELECT count(*)::int AS runs FROM runs')).rows).toEqual([{ runs: 1 }]);
    const { rows } = await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual([...POSTGRES_MIGRATIONS, counted].map((m) => m.version));
  });

  it('do nothing on a database already at the last version', async () => {
    const url = await freshDatabase('again');
    const [first, second] = replicas(url, 2);
    await migratePostgres(first);
    const before = (await first.query('SELECT version, applied_at FROM schema_migrations')).rows;
    await migratePostgres(second);
    expect((await second.query('SELECT version, applied_at FROM schema_migrations')).rows).toEqual(before);
  });

  it('refuse a migration edited after it was applied, and change nothing', async () => {
    const url = await freshDatabase('edited');
    const [pool] = replicas(url, 1);
    await migratePostgres(pool);
    const edited = POSTGRES_MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql} CREATE TABLE extra (x TEXT);` } : m));
    await expect(migratePostgres(pool, edited)).rejects.toThrow(MigrationError);
    expect((await pool.query(`SELECT to_regclass('extra') AS extra`)).rows).toEqual([{ extra: null }]);
  });
});
