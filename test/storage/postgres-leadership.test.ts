import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Leadership } from '../../electron/engine/storage/postgres/leadership';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

let url: string;
let admin: pg.Client;

beforeAll(async () => {
  url = await freshDatabase('leadership');
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(() => admin.end());

/** Three replicas' leaderships, each counting the times it led and stepped down. */
function replicas(count: number, pollMs: number) {
  return Array.from({ length: count }, (_, i) => {
    const seen = { led: 0, lost: 0 };
    const leadership = new Leadership(url, 'expiry', {
      pollMs,
      onLead: () => (seen.led += 1),
      onLose: () => (seen.lost += 1),
    });
    return { name: `replica ${i + 1}`, leadership, seen };
  });
}

/** The backend holding the session's advisory lock of this database, as PostgreSQL itself reports it. */
const holder = async () =>
  (
    await admin.query<{ pid: number }>(
      "SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()",
    )
  ).rows.map((r) => r.pid);

describePostgres('one leader among replicas', () => {
  it('exactly one of three replicas leads; when its connection is killed another takes over, and a stop hands over too', async () => {
    const all = replicas(3, 100);
    await Promise.all(all.map(({ leadership }) => leadership.start()));
    const leaders = () => all.filter(({ leadership }) => leadership.isLeader());

    await expect.poll(() => leaders().length).toBe(1);
    const first = leaders()[0];
    expect(first.seen).toEqual({ led: 1, lost: 0 });
    expect(await holder()).toHaveLength(1);

    // The leader's database session ends (its replica is cut off, or killed): the lock is released with it.
    await admin.query('SELECT pg_terminate_backend($1)', await holder());
    await expect.poll(() => first.seen.lost, { timeout: 5_000 }).toBe(1);
    await expect.poll(() => leaders().length, { timeout: 5_000 }).toBe(1);
    const second = leaders()[0];
    // A replica that lost the lock is a follower again: it may lead once more later, but never two at once.
    expect(all.filter(({ leadership }) => leadership.isLeader())).toHaveLength(1);

    await second.leadership.stop();
    expect(second.seen.lost).toBe(1);
    await expect.poll(() => leaders().filter((r) => r !== second).length, { timeout: 5_000 }).toBe(1);
    expect(await holder()).toHaveLength(1);

    for (const { leadership } of all) await leadership.stop();
    await expect.poll(holder).toEqual([]);
  });

  it('two names are two leaderships: one replica may lead the one and another the other', async () => {
    const expiry = new Leadership(url, 'expiry', { pollMs: 100 });
    const webhooks = new Leadership(url, 'webhooks', { pollMs: 100 });
    await Promise.all([expiry.start(), webhooks.start()]);
    await expect.poll(() => expiry.isLeader() && webhooks.isLeader()).toBe(true);
    await Promise.all([expiry.stop(), webhooks.stop()]);
  });
});
