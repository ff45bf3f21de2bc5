import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { expect, it, onTestFinished } from 'vitest';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { Housekeeping } from '../../electron/engine/housekeeping/housekeeping';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase } from '../../electron/engine/storage/database';
import { Leadership } from '../../electron/engine/storage/postgres/leadership';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import { describePostgres } from '../support/postgres-suite';
import { twoReplicas, type Replica } from '../support/replicas';
import { tempDir } from '../support/test-engine';

/** The engine's periodic jobs with two replicas over one PostgreSQL database: one leader runs them, and expiry is once. */
const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const replicas = twoReplicas('housekeeping');

/** The backend holding this database's advisory lock in its session: the leader's. */
const leaderSession = async () =>
  (
    await replicas.admin.query<{ pid: number }>(
      "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()",
    )
  ).rows.map((r) => r.pid);

describePostgres('housekeeping with two replicas over PostgreSQL', () => {
  it("runs each tick's jobs on the leader alone, and on the other replica once the leader's connection is cut", async () => {
    const runs: string[] = [];
    const replica = async (name: string) => {
      const leader = new Leadership(replicas.url, 'housekeeping', { pollMs: 100 });
      await leader.start();
      const housekeeping = new Housekeeping([{ name: 'count', run: () => runs.push(name) }], { intervalMs: 60_000, leader, onError: () => undefined });
      return { name, leader, housekeeping };
    };
    const both = [await replica('a'), await replica('b')];
    const tickBoth = () => Promise.all(both.map(({ housekeeping }) => housekeeping.tick()));
    const leading = () => both.filter(({ leader }) => leader.isLeader()).map(({ name }) => name);
    try {
      expect(leading()).toHaveLength(1);
      const [first] = leading();
      for (let tick = 0; tick < 5; tick++) await tickBoth();
      expect(runs).toEqual(Array(5).fill(first));

      // The leader is killed: its database session ends, and it never polls again. The other takes the lead at its next poll.
      await replicas.admin.query('SELECT pg_terminate_backend($1)', await leaderSession());
      const dead = both.find(({ name }) => name === first)!;
      await dead.leader.stop();
      await dead.housekeeping.stop();
      await expect.poll(leading, { timeout: 2_000, interval: 20 }).toEqual([first === 'a' ? 'b' : 'a']);
      runs.length = 0;
      for (let tick = 0; tick < 5; tick++) await tickBoth();
      expect(runs).toEqual(Array(5).fill(leading()[0]));
    } finally {
      await Promise.all(both.map(({ leader }) => leader.stop()));
    }
  });

  it('two replicas expiring the same due transactions at once end each one once', async () => {
    // What a commit needs of the vault; expiry never reaches it.
    const dir = tempDir();
    const db = openDatabase({ dataDir: dir });
    onTestFinished(() => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const tokenStore = new UnitTokenStore(unitsOf(db), sealer, new EventOutbox(unitsOf(db), TENANT));
    const manager = (replica: Replica, ttlSeconds: number) => new TransactionManager({ units: replica.units, sealer }, tokenStore, ttlSeconds);
    // Made already due, by a manager whose own timer is off, so only the two racing expirers end them.
    const maker = manager(replicas.a, 0);
    maker.stop();
    const caller = systemCaller(TENANT, { id: 'app-1', name: 'App' });
    const made = await Promise.all(Array.from({ length: 40 }, () => maker.create(caller)));

    const expired: string[] = [];
    const expirers = [manager(replicas.a, 60), manager(replicas.b, 60)];
    for (const expirer of expirers) {
      expirer.on('change', ({ id, state }) => state === 'expired' && expired.push(id));
      expirer.stop();
    }
    await Promise.all(expirers.flatMap((expirer) => [expirer.expireDue(), expirer.expireDue()]));
    expect(expired.sort()).toEqual(made.map(({ id }) => id).sort());
  });
});
