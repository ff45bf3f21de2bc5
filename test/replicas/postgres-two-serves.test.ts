import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sessionFromSecret } from '../../electron/engine';
import { CHANGES_CHANNEL } from '../../electron/engine/storage/postgres/unit-driver';
import { TRANSACTION_CHANGES } from '../../electron/engine/transactions/transaction-store';
import type { TransactionView } from '../../shared/workbench/transaction-contract';
import { openLive } from '../support/live-stream';
import { postgresUrl } from '../support/postgres-suite';
import { REPLICA_KEYS, REPLICA_SEED_TOKEN, serveTakesDatabase, startServeReplicas, type ServeReplica, type ServeReplicas } from '../support/serve-replicas';
import { callApi, type CallOptions } from '../support/test-engine';
import { startWebhookReceiver, type ReceivedDelivery } from '../support/webhook-receiver';

/**
 * The cross-replica properties of issue 43, each with two `serve` processes over one PostgreSQL database, through the
 * vendor-facing HTTP API. They run once `serve --database` starts; until startEngine opens PostgreSQL they skip.
 */
const wired = postgresUrl !== null && (await serveTakesDatabase());
if (postgresUrl !== null && !wired) console.warn('\nTwo-serve replica suite skipped: serve --database is refused (PostgreSQL storage is not wired into serve yet)\n');

/** How long a change on one replica may take to reach the other's caches. */
const COHERENCE_MS = 1000;

const call = (replica: ServeReplica, method: string, path: string, options: CallOptions = {}) => callApi(replica.url, method, path, { key: REPLICA_KEYS.private, ...options });
const manage = (replica: ServeReplica, method: string, path: string, body?: unknown) => callApi(replica.url, method, path, { key: REPLICA_KEYS.management, body });
const createToken = async (replica: ServeReplica, data: unknown = `plain-${randomUUID()}`, headers: Record<string, string> = {}) => {
  const res = await call(replica, 'POST', '/tokens', { body: { type: 'token', data }, headers });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const inTransaction = (id: string) => ({ 'BT-TRANSACTION-ID': id });
const patchToken = (replica: ServeReplica, id: string, data: unknown, headers: Record<string, string> = {}) =>
  call(replica, 'PATCH', `/tokens/${id}`, { raw: JSON.stringify({ data }), headers: { 'content-type': 'application/merge-patch+json', ...headers } });
const openTransaction = async (replica: ServeReplica) => {
  const res = await call(replica, 'POST', '/transactions');
  expect(res.status).toBe(201);
  return res.body.id as string;
};

type LiveBatch = {
  type: string;
  transactions?: TransactionView[];
  transactionsReset?: boolean;
  entries?: { method: string; path: string }[];
  entriesLeftOut?: number;
};

/**
 * A replica's workbench live stream, read in the background: `of(id)` is every view of that transaction it was sent,
 * in order, as [state, operations] (a batch carries each transaction once, in its latest state); `entries` is every
 * history entry it was sent, `leftOut` how many its batches said they left out; `resets` how many batches said to list
 * the transactions again.
 */
async function liveFeed(replica: ServeReplica, sessionSecret: string) {
  const live = await openLive<LiveBatch>(replica.url, `session=${encodeURIComponent(sessionFromSecret(sessionSecret)!)}`);
  expect(live.status).toBe(200);
  expect(await live.next()).toMatchObject({ type: 'connected' });
  const batches: LiveBatch[] = [];
  const reading = (async () => {
    for (;;) batches.push(await live.next());
  })().catch(() => undefined);
  return {
    of: (id: string) =>
      batches
        .flatMap((batch) => batch.transactions ?? [])
        .filter((view) => view.id === id)
        .map((view) => [view.state, view.operations.length] as const),
    entries: () => batches.flatMap((batch) => batch.entries ?? []),
    leftOut: () => batches.reduce((sum, batch) => sum + (batch.entriesLeftOut ?? 0), 0),
    resets: () => batches.filter((batch) => batch.transactionsReset).length,
    close: async () => {
      live.close();
      await reading;
    },
  };
}

/** How far along its life a view of a transaction is: forward only, in any feed. */
const progressOf = ([state, operations]: readonly [string, number]) => (state === 'open' ? operations : Infinity);
const forwardOnly = (heard: (readonly [string, number])[]) => heard.every((view, i) => i === 0 || progressOf(heard[i - 1]) < progressOf(view));

describe.skipIf(!wired)('two serve replicas over one PostgreSQL database', () => {
  let cluster: ServeReplicas;
  let a: ServeReplica;
  let b: ServeReplica;
  beforeAll(async () => {
    cluster = await startServeReplicas({ name: 'two_serves' });
    [a, b] = cluster.replicas;
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('a key revoked on A is refused by B within 1 s', async () => {
    const made = await manage(a, 'POST', '/applications', { name: `revoked-${randomUUID()}`, type: 'private', permissions: ['token:create'] });
    expect(made.status).toBe(201);
    // B knows the key first, so a stale cache entry of B's is what would let it through.
    expect((await callApi(b.url, 'GET', '/applications/key', { key: made.body.key })).status).toBe(200);
    expect((await manage(a, 'DELETE', `/applications/${made.body.id}`)).status).toBe(204);
    await sleep(COHERENCE_MS);
    expect((await callApi(b.url, 'GET', '/applications/key', { key: made.body.key })).status).toBe(401);
  });

  it('a token deleted on A is not detokenized by B after 1 s', async () => {
    const id = await createToken(a, 'deleted-on-a');
    const detokenize = () => call(b, 'POST', '/detokenize', { body: { value: `{{ ${id} }}` } });
    expect((await detokenize()).body).toEqual({ value: 'deleted-on-a' });
    expect((await call(a, 'DELETE', `/tokens/${id}`)).status).toBe(204);
    await sleep(COHERENCE_MS);
    expect((await detokenize()).status).toBe(400);
    expect((await call(b, 'GET', `/tokens/${id}`)).status).toBe(404);
  });

  it('a transaction opened on A, written on both, is committed on B', async () => {
    const transaction = await openTransaction(a);
    const onA = await createToken(a, 'staged on a', inTransaction(transaction));
    const onB = await createToken(b, 'staged on b', inTransaction(transaction));
    for (const id of [onA, onB]) expect((await call(b, 'GET', `/tokens/${id}`)).status).toBe(404);
    expect((await call(b, 'POST', `/transactions/${transaction}/commit`)).status).toBe(200);
    for (const replica of [a, b]) for (const id of [onA, onB]) expect((await call(replica, 'GET', `/tokens/${id}`)).status).toBe(200);
  });

  it("a token locked by A's open transaction is refused to B, and free again once it ends", async () => {
    const id = await createToken(a);
    const transaction = await openTransaction(a);
    expect((await patchToken(a, id, 'changed in a transaction', inTransaction(transaction))).status).toBe(200);
    expect((await patchToken(b, id, 'changed directly')).status).toBe(409);
    const other = await openTransaction(b);
    expect((await patchToken(b, id, 'changed in another', inTransaction(other))).status).toBe(409);
    expect((await call(a, 'POST', `/transactions/${transaction}/rollback`)).status).toBe(200);
    expect((await patchToken(b, id, 'changed directly')).status).toBe(200);
  });

  it('20 transactions racing to stage one token, half on each replica: exactly 1 wins', async () => {
    const id = await createToken(a);
    const racers = await Promise.all(Array.from({ length: 20 }, (_, i) => openTransaction(i % 2 ? b : a)));
    const statuses = await Promise.all(racers.map((transaction, i) => patchToken(i % 2 ? b : a, id, `racer ${i}`, inTransaction(transaction)).then((res) => res.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
  });

  it('one idempotency key from 10 callers across both replicas runs once', async () => {
    const run = randomUUID();
    const key = { 'BT-IDEMPOTENCY-KEY': `idem-${run}` };
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(i % 2 ? b : a, 'POST', '/tokens', { body: { type: 'token', data: 'once', metadata: { run } }, headers: key })),
    );
    expect(answers.every((res) => res.status === 201 || res.status === 409)).toBe(true);
    const ids = new Set(answers.filter((res) => res.status === 201).map((res) => res.body.id));
    expect(ids.size).toBe(1);
    const listed = await call(b, 'GET', `/tokens?metadata.run=${run}`);
    expect(listed.body.pagination.total_items).toBe(1);
    // A repeat after the run replays the one answer, on either replica.
    const replay = await call(b, 'POST', '/tokens', { body: { type: 'token', data: 'once', metadata: { run } }, headers: key });
    expect(replay.headers['bt-idempotency-replayed']).toBe('true');
    expect(replay.body.id).toBe([...ids][0]);
  });

  it("a tenant setting changed on A applies on B within 1 s", async () => {
    const data = `duplicate-${randomUUID()}`;
    expect((await manage(a, 'PUT', '/tenants/self', { name: 'Tokenbench', settings: { deduplicate_tokens: 'true' } })).status).toBe(200);
    await sleep(COHERENCE_MS);
    expect((await manage(b, 'GET', '/tenants/self')).body.settings).toMatchObject({ deduplicate_tokens: 'true' });
    const first = await createToken(b, data);
    expect(await createToken(b, data)).toBe(first);
    expect((await manage(b, 'PUT', '/tenants/self', { name: 'Tokenbench' })).status).toBe(200);
  });

  it("B's workbench hears, live, a token A created", async () => {
    const live = await openLive(b.url, `session=${encodeURIComponent(sessionFromSecret(cluster.sessionSecret)!)}`);
    expect(live.status).toBe(200);
    expect(await live.next()).toMatchObject({ type: 'connected' });
    const id = await createToken(a);
    for (;;) {
      const event = await live.next();
      if (JSON.stringify(event).includes(id)) break;
    }
    live.close();
  }, 20_000);

  it("B's workbench hears, live, each transaction A opens, stages in and ends, never going back", async () => {
    const feed = await liveFeed(b, cluster.sessionSecret);
    try {
      const hears = (id: string, state: string, operations: number) =>
        vi.waitFor(() => expect(feed.of(id).at(-1)).toEqual([state, operations]), { timeout: COHERENCE_MS, interval: 20 });
      const committed = await openTransaction(a);
      await hears(committed, 'open', 0);
      await createToken(a, 'staged on a', inTransaction(committed));
      await hears(committed, 'open', 1);
      await createToken(a, 'staged again', inTransaction(committed));
      await hears(committed, 'open', 2);
      expect((await call(a, 'POST', `/transactions/${committed}/commit`)).status).toBe(200);
      await hears(committed, 'committed', 2);

      const rolledBack = await openTransaction(a);
      await createToken(a, 'staged, then rolled back', inTransaction(rolledBack));
      expect((await call(a, 'POST', `/transactions/${rolledBack}/rollback`)).status).toBe(200);
      await hears(rolledBack, 'rolled_back', 1);
      for (const id of [committed, rolledBack]) expect(forwardOnly(feed.of(id))).toBe(true);
    } finally {
      await feed.close();
    }
  }, 20_000);

  it("B's workbench hears, live, the requests A handled", async () => {
    const feed = await liveFeed(b, cluster.sessionSecret);
    try {
      const id = await createToken(a);
      expect((await call(a, 'GET', `/tokens/${id}`)).status).toBe(200);
      await vi.waitFor(() => expect(feed.entries()).toContainEqual(expect.objectContaining({ method: 'GET', path: `/tokens/${id}` })), {
        timeout: COHERENCE_MS,
        interval: 20,
      });
    } finally {
      await feed.close();
    }
  }, 20_000);

  it("B's workbench, under a burst of A's requests, is sent each one or told how many its batches left out", async () => {
    const feed = await liveFeed(b, cluster.sessionSecret);
    try {
      const burst = `burst-${randomUUID()}`;
      const count = 1000;
      const senders = 40;
      await Promise.all(
        Array.from({ length: senders }, async (_, sender) => {
          for (let i = sender; i < count; i += senders) expect((await call(a, 'GET', `/tokens/${burst}-${i}`)).status).toBe(404);
        }),
      );
      // Only the burst reaches the history meanwhile: what B's batches carried of it and what they left out add up.
      const carried = () => feed.entries().filter((entry) => entry.path.startsWith(`/tokens/${burst}-`)).length;
      await vi.waitFor(() => expect(carried() + feed.leftOut()).toBe(count), { timeout: 5 * COHERENCE_MS, interval: 50 });
      await sleep(300);
      expect(carried() + feed.leftOut()).toBe(count);
    } finally {
      await feed.close();
    }
  }, 30_000);

  it('history from both replicas in one place: either lists what the other logged', async () => {
    const onA = await createToken(a);
    const onB = await createToken(b);
    // Each replica writes its entries in batches after answering: another replica's are there within a second.
    for (const replica of [a, b]) {
      for (const id of [onA, onB]) {
        await vi.waitFor(
          async () => {
            const logs = await manage(replica, 'GET', `/logs?entity_id=${id}`);
            expect(logs.status).toBe(200);
            expect(logs.body.data).toEqual([expect.objectContaining({ entity_id: id, operation: 'create' })]);
          },
          { timeout: COHERENCE_MS, interval: 50 },
        );
      }
    }
  });

  it('each webhook delivery is sent once, whichever replica raised its event', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const hook = await manage(a, 'POST', '/webhooks', { name: 'replicas', url: receiver.url, events: ['token.created'] });
      expect(hook.status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await createToken(i % 2 ? b : a));
      const tokenOf = (delivery: ReceivedDelivery) => (delivery.body.event.data as { token?: { id: string } }).token?.id ?? '';
      await receiver.waitFor(10, (delivery) => ids.includes(tokenOf(delivery)));
      // Time for a second replica's duplicate, had it sent one.
      await sleep(2000);
      expect(receiver.received.map(tokenOf).filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    } finally {
      await receiver.close();
    }
  }, 30_000);

  it('kill -9 of A under write load: every write A acknowledged is on B, and B keeps serving', async () => {
    const acknowledged: string[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const res = await call(a, 'POST', '/tokens', { body: { type: 'token', data: `load-${acknowledged.length}` } }).catch(() => null);
        if (res === null) return;
        if (res.status === 201) acknowledged.push(res.body.id);
      }
    })();
    while (acknowledged.length < 20) await sleep(20);
    await a.kill9();
    stop = true;
    await load;
    for (const id of acknowledged) expect((await call(b, 'GET', `/tokens/${id}`)).status).toBe(200);
    await createToken(b);
    await a.restart();
    expect((await call(a, 'GET', `/tokens/${acknowledged.at(-1)}`)).status).toBe(200);
  }, 90_000);
});

describe.skipIf(!wired)('three serve replicas started together on a fresh database', () => {
  it('all start, with one tenant, one set of applications and the seed applied once', async () => {
    const cluster = await startServeReplicas({ name: 'together', count: 3, together: true });
    try {
      const { replicas } = cluster;
      const tenants = await Promise.all(replicas.map((replica) => manage(replica, 'GET', '/tenants/self')));
      expect(tenants.map((res) => res.status)).toEqual([200, 200, 200]);
      expect(new Set(tenants.map((res) => res.body.id)).size).toBe(1);
      const applications = await manage(replicas[0], 'GET', '/applications?size=100');
      expect(applications.status).toBe(200);
      const names = (applications.body.data as { name: string }[]).map((application) => application.name).sort();
      expect(names).toEqual([...new Set(names)]);
      expect(names).toEqual(expect.arrayContaining(['replicas-backend', 'replicas-ops']));
      for (const replica of replicas) {
        const seeded = await call(replica, 'GET', '/tokens?metadata.seeded=replicas');
        expect(seeded.body.data.map((token: { id: string }) => token.id)).toEqual([REPLICA_SEED_TOKEN]);
      }
    } finally {
      await cluster.stop();
    }
  }, 120_000);
});

describe.skipIf(!wired)('transactions expiring on two serve replicas', () => {
  it('40 transactions opened across both, with a 1 s lifetime, each expire exactly once, and both workbenches hear each', async () => {
    const cluster = await startServeReplicas({ name: 'expiries', args: ['--transaction-ttl', '1'] });
    const listener = new pg.Client({ connectionString: cluster.databaseUrl });
    const feeds: Awaited<ReturnType<typeof liveFeed>>[] = [];
    try {
      // Every replica names each transaction it opens or ends on the change channel, once per change it commits: the
      // end a second replica would have made too shows as a third notice.
      const notices = new Map<string, number>();
      await listener.connect();
      listener.on('notification', ({ payload = '' }) => {
        const [, channel, id] = payload.split(' ');
        if (channel === TRANSACTION_CHANGES) notices.set(id, (notices.get(id) ?? 0) + 1);
      });
      await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
      for (const replica of cluster.replicas) feeds.push(await liveFeed(replica, cluster.sessionSecret));

      // Each replica's timer ends every due transaction, the other's with its own: the two race for each one.
      const [a, b] = cluster.replicas;
      const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => openTransaction(i % 2 ? b : a)));
      const notExpired = () => feeds.map((feed) => ids.filter((id) => feed.of(id).at(-1)?.[0] !== 'expired').length);
      await vi.waitFor(() => expect(notExpired()).toEqual([0, 0]), { timeout: 5_000, interval: 50 });
      // Time for a late second end, had one been made.
      await sleep(1_000);
      expect(ids.map((id) => notices.get(id) ?? 0)).toEqual(ids.map(() => 2));
      for (const feed of feeds) for (const id of ids) expect(forwardOnly(feed.of(id))).toBe(true);
      const answer = await call(b, 'POST', `/transactions/${ids[0]}/commit`);
      expect(answer.status).toBe(409);
    } finally {
      await Promise.all(feeds.map((feed) => feed.close()));
      await listener.end();
      await cluster.stop();
    }
  }, 120_000);
});

describe.skipIf(!wired)('a wipe on one of two serve replicas', () => {
  it("B's workbench, showing A's open transaction, is told to list the transactions again when A wipes the vault", async () => {
    const cluster = await startServeReplicas({ name: 'wipe' });
    const [a, b] = cluster.replicas;
    const session = sessionFromSecret(cluster.sessionSecret)!;
    const workbench = (replica: ServeReplica, name: string, body: unknown) =>
      callApi(replica.url, 'POST', `/_workbench/${name}`, { body, headers: { 'X-Tokenbench-Session': session } });
    const feed = await liveFeed(b, cluster.sessionSecret);
    try {
      const open = await openTransaction(a);
      await createToken(a, 'staged, then wiped', inTransaction(open));
      await vi.waitFor(() => expect(feed.of(open).at(-1)).toEqual(['open', 1]), { timeout: COHERENCE_MS, interval: 20 });
      expect(feed.resets()).toBe(0);
      expect((await workbench(a, 'wipeVault', { confirm: 'wipe' })).status).toBe(200);
      await vi.waitFor(() => expect(feed.resets()).toBe(1), { timeout: COHERENCE_MS, interval: 20 });
      // What B's page then lists: the transaction gone, as on A.
      const listed = await workbench(b, 'listTransactions', {});
      expect(listed.body).toMatchObject({ transactions: [], counts: { kept: 0, open: 0 } });
    } finally {
      await feed.close();
      await cluster.stop();
    }
  }, 120_000);
});
