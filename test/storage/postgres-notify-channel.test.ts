import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NotifyChannel } from '../../electron/engine/storage/postgres/notify-channel';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

let url: string;
let sender: pg.Client;

beforeAll(async () => {
  url = await freshDatabase('notify');
  sender = new pg.Client({ connectionString: url });
  await sender.connect();
});
afterAll(() => sender.end());

/** The backends of this database other than the sender's: the channel's listening connection, if any. */
const listeners = async () =>
  (
    await sender.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
  ).rows.map((r) => r.pid);

/** The next payload `listen` hands over, or 'nothing' after a moment. */
function next(received: string[]): Promise<string> {
  const seen = received.length;
  return new Promise((resolve) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (received.length > seen || Date.now() - started > 5_000) {
        clearInterval(poll);
        resolve(received[seen] ?? 'nothing');
      }
    }, 10);
  });
}

describePostgres('the notify channel between replicas', () => {
  it("delivers another connection's notifications, again after its connection is killed, and leaves none behind when stopped", async () => {
    let reconnects = 0;
    const channel = new NotifyChannel(url, { onReconnect: () => (reconnects += 1) });
    await channel.start();
    const received: string[] = [];
    const other: string[] = [];
    await channel.listen('token.deleted', (id) => received.push(id));
    await channel.listen('key.revoked', (id) => other.push(`revoked ${id}`));

    let arrived = next(received);
    await sender.query("SELECT pg_notify('token.deleted', 'tok-1')");
    expect(await arrived).toBe('tok-1');

    const [backend] = await listeners();
    await sender.query('SELECT pg_terminate_backend($1)', [backend]);
    // Sent while no one listens: lost, which is why the channel says it reconnected.
    await sender.query("SELECT pg_notify('token.deleted', 'tok-lost')");
    await expect.poll(() => reconnects, { timeout: 5_000 }).toBe(1);
    expect(await listeners()).not.toContain(backend);

    arrived = next(received);
    await sender.query("SELECT pg_notify('token.deleted', 'tok-2'), pg_notify('key.revoked', 'key-1')");
    expect(await arrived).toBe('tok-2');
    await expect.poll(() => other).toEqual(['revoked key-1']);

    await channel.stop();
    await expect.poll(listeners).toEqual([]);
  });
});
