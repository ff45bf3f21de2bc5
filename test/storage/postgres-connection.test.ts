import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { DatabaseUrlError } from '../../electron/engine/storage/postgres/database-url';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

describePostgres('a PostgreSQL pool from a URL', () => {
  let url: string;
  const pools: pg.Pool[] = [];
  const open = (withParams: string) => {
    const pool = openPostgresPool(`${url}${withParams}`);
    pools.push(pool);
    return pool;
  };
  beforeAll(async () => {
    url = await freshDatabase('connection');
  });
  afterAll(() => Promise.all(pools.map((pool) => pool.end())));

  it("holds at most the URL's max connections", async () => {
    const pool = open('?max=2');
    const backends = await Promise.all(
      Array.from({ length: 4 }, async () => (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)')).rows[0].pid),
    );
    expect(new Set(backends).size).toBe(2);
  });

  it('reads BIGINT as a number, and refuses one a number cannot hold exactly', async () => {
    const pool = open('');
    expect((await pool.query('SELECT 1767225600000::bigint AS at')).rows).toEqual([{ at: 1767225600000 }]);
    await expect(pool.query('SELECT 9007199254740993::bigint AS at')).rejects.toThrow(RangeError);
  });

  it('refuses what is not a postgres:// URL, or a pool size that is not one, without repeating the URL', () => {
    for (const bad of ['not a url', 'mysql://admin:hunter2@db.example/vault', 'postgres://admin:hunter2@db.example/vault?max=lots']) {
      expect(() => openPostgresPool(bad)).toThrow(DatabaseUrlError);
      expect(() => openPostgresPool(bad)).not.toThrow(/hunter2/);
    }
  });
});
