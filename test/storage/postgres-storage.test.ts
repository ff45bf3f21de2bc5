import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { openEngineStorage, type EngineStorage } from '../../electron/engine/engine-storage';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { DatabaseUrlError } from '../../electron/engine/storage/postgres/database-url';
import { DatabaseUnreachableError } from '../../electron/engine/storage/postgres/open-storage';
import { POSTGRES_MIGRATIONS } from '../../electron/engine/storage/postgres/schema';
import { Sealer } from '../../electron/engine/storage/crypto';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { tx } from '../../electron/engine/storage/unit';
import { recordKeyCheck, WrongMasterKeyError } from '../../electron/engine/storage/vault-key';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

describePostgres('opening the engine storage on PostgreSQL', () => {
  const opened: EngineStorage[] = [];
  const pools: pg.Pool[] = [];
  const open = async (url: string, masterKey: Buffer) => {
    const storage = await openEngineStorage({ url, masterKey });
    opened.push(storage);
    return storage;
  };
  /** What the database holds that a start writes: its settings rows and its migrations. */
  const written = async (url: string) => {
    const pool = openPostgresPool(url);
    pools.push(pool);
    const settings = await pool.query<{ key: string; value: string }>("SELECT key, value FROM settings WHERE key IN ('tenant_id', 'master_key_check') ORDER BY key");
    const migrations = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    return { settings: settings.rows, migrations: migrations.rows[0].n };
  };
  afterAll(async () => {
    await Promise.all(opened.map((storage) => storage.close()));
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('two replicas starting together on an empty database share one schema, one tenant id and one key check', async () => {
    const url = await freshDatabase('storage_together');
    const key = randomBytes(32);
    const [a, b] = await Promise.all([open(url, key), open(url, key)]);
    expect(a.tenantId).toBe(b.tenantId);
    const { settings, migrations } = await written(url);
    expect(migrations).toBe(POSTGRES_MIGRATIONS.length);
    expect(settings.map((row) => row.key)).toEqual(['master_key_check', 'tenant_id']);
    expect(settings[1].value).toBe(a.tenantId);
    // A third start later finds all of it and adds nothing.
    expect((await open(url, key)).tenantId).toBe(a.tenantId);
    expect(await written(url)).toEqual({ settings, migrations });
  });

  it('refuses another master key with the clear message, before writing anything', async () => {
    const url = await freshDatabase('storage_wrong_key');
    await open(url, randomBytes(32));
    const before = await written(url);
    const refused = openEngineStorage({ url, masterKey: randomBytes(32) });
    await expect(refused).rejects.toThrow(WrongMasterKeyError);
    await expect(refused).rejects.toThrow('this vault was sealed with another master key: start with the key it was made with');
    expect(await written(url)).toEqual(before);
  });

  it('of two replicas starting together on an empty database with different keys, one starts and the other is refused', async () => {
    const url = await freshDatabase('storage_key_race');
    const starts = await Promise.allSettled([open(url, randomBytes(32)), open(url, randomBytes(32))]);
    expect(starts.filter((start) => start.status === 'fulfilled')).toHaveLength(1);
    const refused = starts.find((start) => start.status === 'rejected');
    expect(refused?.reason).toBeInstanceOf(WrongMasterKeyError);
    expect((await written(url)).settings.filter((row) => row.key === 'master_key_check')).toHaveLength(1);
  });

  it('of two key checks racing on a new vault, exactly one keeps its value and the other is refused', async () => {
    const url = await freshDatabase('storage_check_race');
    const runner = () => {
      const pool = openPostgresPool(url);
      pools.push(pool);
      return new PostgresUnits(pool);
    };
    const [a, b] = [runner(), runner()];
    await migratePostgres(a.pool);
    for (let round = 0; round < 10; round++) {
      await a.pool.query("DELETE FROM settings WHERE key = 'master_key_check'");
      const checks = await Promise.allSettled([recordKeyCheck(a, new Sealer(randomBytes(32)), null), recordKeyCheck(b, new Sealer(randomBytes(32)), null)]);
      expect(checks.map((check) => check.status).sort()).toEqual(['fulfilled', 'rejected']);
    }
  });

  it('says a database cannot be reached, or a URL is not one, without repeating the password', async () => {
    const unreachable = openEngineStorage({ url: 'postgres://vault:hunter2@127.0.0.1:1/vault', masterKey: randomBytes(32) });
    await expect(unreachable).rejects.toThrow(DatabaseUnreachableError);
    await expect(unreachable).rejects.toThrow(/cannot reach the database at 127\.0\.0\.1:1\/vault as vault/i);
    await expect(unreachable).rejects.not.toThrow(/hunter2/);
    const notPostgres = openEngineStorage({ url: 'mysql://vault:hunter2@db.example/vault', masterKey: randomBytes(32) });
    await expect(notPostgres).rejects.toThrow(DatabaseUrlError);
    await expect(notPostgres).rejects.not.toThrow(/hunter2/);
  });
  it('two storages on one database: a change notice crosses, a resync follows a killed listen connection, one leads the housekeeping', async () => {
    const url = await freshDatabase('storage_replicas');
    const key = randomBytes(32);
    const [a, b] = await Promise.all(['replica-a', 'replica-b'].map((name) => open(`${url}?application_name=${name}`, key)));
    const heard: string[] = [];
    b.units.changes.listen('test', (id, origin) => heard.push(`${id} ${origin}`));
    let resyncs = 0;
    b.units.changes.onResync(() => resyncs++);
    await a.units.run(() => tx.notify('test', 'one'));
    await expect.poll(() => heard, { timeout: 1_000 }).toEqual(['one elsewhere']);

    const pool = openPostgresPool(url);
    pools.push(pool);
    const { rows } = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = 'replica-b' AND query LIKE 'LISTEN%'");
    expect(rows).toHaveLength(1);
    await pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
    await expect.poll(() => resyncs, { timeout: 5_000 }).toBe(1);
    await a.units.run(() => tx.notify('test', 'two'));
    await expect.poll(() => heard, { timeout: 1_000 }).toEqual(['one elsewhere', 'two elsewhere']);

    const leaders = () => [a, b].filter((storage) => storage.leader?.isLeader());
    // Each replica asks for the lead as it starts, without waiting: one has it once both have asked.
    await expect.poll(() => leaders().length, { timeout: 3_000 }).toBe(1);
    const [leader] = leaders();
    const follower = leader === a ? b : a;
    opened.splice(opened.indexOf(leader), 1);
    await leader.close();
    await expect.poll(() => follower.leader?.isLeader(), { timeout: 3_000 }).toBe(true);
  });

  it("hands the history its database and the replica's name on its change channel, where SQLite keeps it in the data folder", async () => {
    const url = await freshDatabase('storage_history');
    const storage = await open(url, randomBytes(32));
    expect(storage.historyDatabase).toEqual({ databaseUrl: url, origin: storage.units.origin });
    const sqlite = await openEngineStorage({ dataDir: null });
    expect([sqlite.historyDatabase, sqlite.leader]).toEqual([{}, null]);
    await sqlite.close();
  });
});
