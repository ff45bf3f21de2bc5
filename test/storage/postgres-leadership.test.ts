import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
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

/** The leaderships a test started, stopped after it whatever happened, so a failure does not leave a lock held. */
const started: Leadership[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((leadership) => leadership.stop()));
});

describePostgres('one leader among replicas', () => {
  it('exactly one of three replicas leads; when its connection is killed one leads again, and a stop hands over to another', async () => {
    const all = replicas(3, 100);
    started.push(...all.map(({ leadership }) => leadership));
    await Promise.all(all.map(({ leadership }) => leadership.start()));
    const leaders = () => all.filter(({ leadership }) => leadership.isLeader());

    await expect.poll(() => leaders().length).toBe(1);
    const first = leaders()[0];
    expect(first.seen).toEqual({ led: 1, lost: 0 });
    expect(await holder()).toHaveLength(1);

    // The leader's database session ends (its replica is cut off, or killed): the lock is released with it, and the
    // next replica to poll takes it, which may be the same one once it has reconnected.
    await admin.query('SELECT pg_terminate_backend($1)', await holder());
    await expect.poll(() => first.seen.lost, { timeout: 5_000 }).toBe(1);
    await expect.poll(() => leaders().length, { timeout: 5_000 }).toBe(1);
    const next = leaders()[0];

    const lostBefore = next.seen.lost;
    await next.leadership.stop();
    expect(next.seen.lost).toBe(lostBefore + 1);
    await expect.poll(() => leaders().filter((r) => r !== next).length, { timeout: 5_000 }).toBe(1);
    // Polled: under load a leader's check can time out, and it steps down (releasing the lock) until its next poll.
    await expect.poll(holder).toHaveLength(1);

    for (const { leadership } of all) await leadership.stop();
    await expect.poll(holder).toEqual([]);
  });

  it('two names are two leaderships: one replica may lead the one and another the other', async () => {
    const expiry = new Leadership(url, 'expiry', { pollMs: 100 });
    const webhooks = new Leadership(url, 'webhooks', { pollMs: 100 });
    started.push(expiry, webhooks);
    await Promise.all([expiry.start(), webhooks.start()]);
    await expect.poll(() => expiry.isLeader() && webhooks.isLeader()).toBe(true);
  });
});
