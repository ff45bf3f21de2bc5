import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { IntentStore, takingIntent } from '../../electron/engine/token-intents/intent-store';
import { ReactorResults, replicaRunsLostAfterMs } from '../../electron/engine/reactors/reactor-results';
import { IdempotencyStore } from '../../electron/engine/server/idempotency';
import { ApiProblem } from '../../electron/engine/server/problem';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { query, tx, type Unit } from '../../electron/engine/storage/unit';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { TransactionWriter } from '../../electron/engine/transactions/transaction-writer';
import { type TokenWrite, UnitTokenStore } from '../../electron/engine/vault/token-store';
import { describePostgres } from '../support/postgres-suite';
import { type Replica, twoReplicas } from '../support/replicas';
import { storedToken } from '../support/stored-token';

/**
 * Check-then-write units raced from two replicas over one PostgreSQL database (READ COMMITTED, a pool each): what one
 * unit reads and decides from, the other may not change under it, and units on different rows do not wait for each other.
 */
const TENANT = 'tenant-1';
const ROUNDS = 20;
const caller = systemCaller(TENANT, { id: 'app-1', name: 'App' });
const sealer = new Sealer(randomBytes(32));
const replicas = twoReplicas('races');

const clock = query<{ at: string }>('races test: clock', "SELECT to_char(clock_timestamp(), 'YYYY-MM-DD\"T\"HH24:MI:SS.US') AS at");
const pause = query('races test: pause', 'SELECT pg_sleep(0.3)');
const stagedOn = query<string>('races test: transactions staging a token', 'SELECT DISTINCT transaction_id FROM transaction_writes WHERE token_id = ?', { pluck: true });
const stateOf = query<{ state: string }>('races test: a transaction state', 'SELECT state FROM transactions WHERE id = ?');
const tokenOf = query<{ id: string }>('races test: a token', 'SELECT id FROM tokens WHERE id = ?');

const create = (id: string): TokenWrite => ({ op: 'create', token: storedToken(id), searchTerms: [] });

/** One replica's transaction manager and writer, over its own runner and token store. */
function servicesOf(replica: Replica) {
  const tokens = new UnitTokenStore(replica.units, sealer, new EventOutbox(replica.units, TENANT));
  const transactions = new TransactionManager({ units: replica.units, sealer }, tokens, 60);
  return { units: replica.units, transactions, writer: new TransactionWriter(transactions, tokens, 'BT-TRANSACTION-ID') };
}
type Services = ReturnType<typeof servicesOf>;

/** The unit a request writing `writes` in transaction `id` (or directly, without one) runs. */
async function writeUnit({ writer }: Services, id: string | undefined, writes: TokenWrite[]): Promise<Unit<void>> {
  const target = await writer.target({ caller, transactionId: id, cause: null });
  return target.unit(writes);
}

/** How each of the racing calls ended: what it answered ('ok' for nothing), or the status of the ApiProblem it threw. */
async function outcomes(calls: Promise<unknown>[]): Promise<(string | number)[]> {
  return (await Promise.allSettled(calls)).map((result) => {
    if (result.status === 'fulfilled') return typeof result.value === 'string' ? result.value : 'ok';
    if (result.reason instanceof ApiProblem) return result.reason.status;
    throw result.reason;
  });
}

/** When a unit holding what `unit` locks began and ended, by the database's clock, the lock held throughout. */
async function heldWindow(units: PostgresUnits, unit: () => Promise<Unit<void>>): Promise<[string, string]> {
  const start = await unit();
  return units.run(function* () {
    yield* start;
    const from = (yield* tx.get(clock))!.at;
    yield* tx.get(pause);
    return [from, (yield* tx.get(clock))!.at] as [string, string];
  });
}

describePostgres('check-then-write units raced from two replicas over PostgreSQL', () => {
  it('stagings of one token in transactions on both replicas, raced: exactly one wins, every round', async () => {
    const [a, b] = [servicesOf(replicas.a), servicesOf(replicas.b)];
    for (let round = 0; round < ROUNDS; round++) {
      const racers = [a, b, a, b];
      const ids = await Promise.all(racers.map(async (side) => (await side.transactions.create(caller)).id));
      const tokenId = `t-staged-${round}`;
      const units = await Promise.all(racers.map((side, i) => writeUnit(side, ids[i], [create(tokenId)])));
      const ended = await outcomes(racers.map((side, i) => side.units.run(() => units[i])));
      expect(ended.sort()).toEqual([409, 409, 409, 'ok']);
      expect(await replicas.a.units.read(() => tx.all(stagedOn, [tokenId]))).toHaveLength(1);
    }
  });

  it('a direct create of an id a staging on the other replica is reserving waits for it, and is refused', async () => {
    const [a, b] = [servicesOf(replicas.a), servicesOf(replicas.b)];
    for (let round = 0; round < 3; round++) {
      const { id } = await a.transactions.create(caller);
      const tokenId = `t-direct-${round}`;
      const staging = heldWindow(a.units, () => writeUnit(a, id, [create(tokenId)]));
      // The staging holds the id's lock, not yet committed, when the direct write checks it.
      await sleep(100);
      const direct = await writeUnit(b, undefined, [create(tokenId)]);
      expect(await outcomes([staging, b.units.run(() => direct)])).toEqual(['ok', 409]);
      expect(await replicas.a.units.read(() => tx.get(tokenOf, [tokenId]))).toBeUndefined();
      await a.transactions.rollback(id);
    }
  });

  it('a transaction committed on one replica while rolled back on the other ends once, every round', async () => {
    const [a, b] = [servicesOf(replicas.a), servicesOf(replicas.b)];
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await a.transactions.create(caller);
      const tokenId = `t-ended-${round}`;
      const staging = await writeUnit(a, id, [create(tokenId)]);
      await a.units.run(() => staging);
      const ended = await outcomes([a.transactions.commit(id), b.transactions.rollback(id)]);
      const record = await replicas.a.units.read(() => tx.get(stateOf, [id]));
      const stored = await replicas.a.units.read(() => tx.get(tokenOf, [tokenId]));
      expect(ended.filter((end) => end === 'ok')).toHaveLength(1);
      // Committed with its write applied, or rolled back with nothing applied: never a write from a rolled back one.
      expect([record?.state, stored?.id]).toEqual(ended[0] === 'ok' ? ['committed', tokenId] : ['rolled_back', undefined]);
    }
  });

  it('an intent converted on both replicas at once makes one token, every round', async () => {
    const [a, b] = [servicesOf(replicas.a), servicesOf(replicas.b)];
    const intents = new IntentStore(replicas.a.units, sealer);
    for (let round = 0; round < ROUNDS; round++) {
      const now = Date.now();
      const intentId = `intent-${round}`;
      const intent = { id: intentId, type: 'token' as const, data: 'intent data', fingerprint: null, details: {}, created_by: 'app-1', created_at: new Date(now).toISOString(), expires_at: new Date(now + 60_000).toISOString() };
      await replicas.a.units.run(intents.inserting(intent));
      const tokenIds = [a, b, a, b].map((_, i) => `t-converted-${round}-${i}`);
      const converting = (side: Services, tokenId: string) =>
        side.units.run(function* () {
          if (!(yield* takingIntent(intentId, undefined))) throw new ApiProblem(400, 'gone');
          yield* side.writer.direct([create(tokenId)]);
        });
      const ended = await outcomes([a, b, a, b].map((side, i) => converting(side, tokenIds[i])));
      expect(ended.sort()).toEqual([400, 400, 400, 'ok']);
      const made = await Promise.all(tokenIds.map((id) => replicas.a.units.read(() => tx.get(tokenOf, [id]))));
      expect(made.filter(Boolean)).toHaveLength(1);
    }
  });

  it('one idempotency key sent to both replicas at once by ten callers runs once, every round', async () => {
    const stores = [new IdempotencyStore(replicas.a.units, sealer), new IdempotencyStore(replicas.b.units, sealer)];
    for (let round = 0; round < ROUNDS; round++) {
      let runs = 0;
      const scope = { applicationId: 'app-1', key: `k-${round}`, method: 'POST', path: '/tokens' };
      const handler = async () => {
        runs += 1;
        await sleep(20);
        return { status: 201, body: { id: `made-${round}` } };
      };
      const replies = Array.from({ length: 10 }, (_, i) => stores[i % 2].run(scope, handler).then((reply) => (reply.replayed ? 'replayed' : 'ran')));
      const ended = await outcomes(replies);
      expect(runs).toBe(1);
      // One ran it; the others found it running (409) or replayed its answer.
      expect(ended.filter((end) => end === 'ran')).toHaveLength(1);
      expect(ended.filter((end) => end !== 'ran' && end !== 409 && end !== 'replayed')).toEqual([]);
      // Once kept, every replica replays it.
      expect(await Promise.all(stores.map((store) => store.run(scope, handler)))).toEqual([
        { status: 201, body: { id: `made-${round}` }, replayed: true },
        { status: 201, body: { id: `made-${round}` }, replayed: true },
      ]);
    }
  });

  it('an idempotency key whose request failed is given back, and one whose replica stopped mid-request is taken over later', async () => {
    const store = new IdempotencyStore(replicas.b.units, sealer);
    const scope = { applicationId: 'app-1', key: 'k-abandoned', method: 'POST', path: '/tokens' };
    await expect(store.run(scope, () => Promise.reject(new Error('handler failed')))).rejects.toThrow('handler failed');
    expect(await store.run(scope, () => Promise.resolve({ status: 400, body: {} }))).toEqual({ status: 400, body: {} });
    // A claim as a replica stopped mid-request leaves it: refused while it may still run, taken over once it cannot.
    const leftAt = (ago: number) => new Date(Date.now() - ago).toISOString();
    await replicas.admin.query("INSERT INTO idempotency_keys VALUES ('app-1', 'k-abandoned', 'POST', '/tokens', 0, '', $1)", [leftAt(60_000)]);
    await expect(store.run(scope, () => Promise.resolve({ status: 201 }))).rejects.toMatchObject({ status: 409 });
    await replicas.admin.query("UPDATE idempotency_keys SET created_at = $1 WHERE key = 'k-abandoned'", [leftAt(10 * 60_000)]);
    expect(await store.run(scope, () => Promise.resolve({ status: 201 }))).toEqual({ status: 201 });
    expect(await store.run(scope, () => Promise.resolve({ status: 202 }))).toEqual({ status: 201, replayed: true });
  });

  it('a replica starting while the other runs a reactor leaves that run pending; one pending past any run fails, at a start or by the leader', async () => {
    const lostAfter = replicaRunsLostAfterMs(5 * 60_000);
    let now = Date.now();
    const [running, starting] = [replicas.a, replicas.b].map((replica) => new ReactorResults(replica.units, sealer, () => now, lostAfter));
    const reactorId = randomUUID();
    const answer = { status: 200, headers: {}, body: { raw: 'kept' } };
    const going = await running.start(reactorId);
    await starting.load();
    expect(await starting.get(reactorId, going)).toBe('pending');
    expect(await running.finish(reactorId, going, answer)).toBeNull();
    expect(await starting.get(reactorId, going)).toEqual(answer);

    // Runs whose replica stopped: failed by the leader's sweep, or at the next start, once pending past any run.
    const [swept, atStart] = [await running.start(reactorId), await running.start(reactorId)];
    now += lostAfter - 1000;
    await starting.failLost();
    expect(await starting.get(reactorId, swept)).toBe('pending');
    now += 2000;
    await starting.failLost();
    const failed = { status: 500, body: { detail: 'Reactor Runtime Error' } };
    expect(await starting.get(reactorId, swept)).toMatchObject(failed);
    await new ReactorResults(replicas.b.units, sealer, () => now, lostAfter).load();
    expect(await starting.get(reactorId, atStart)).toMatchObject(failed);
    expect(await starting.get(reactorId, going)).toEqual(answer);
  });

  it('stagings of different tokens on the two replicas hold their locks at once: no global lock', async () => {
    const [a, b] = [servicesOf(replicas.a), servicesOf(replicas.b)];
    const [onA, onB] = [await a.transactions.create(caller), await b.transactions.create(caller)];
    const apart = await Promise.all([
      heldWindow(a.units, () => writeUnit(a, onA.id, [create('t-apart-a')])),
      heldWindow(b.units, () => writeUnit(b, onB.id, [create('t-apart-b')])),
    ]);
    const overlap = (windows: [string, string][]) => windows[0][0] < windows[1][1] && windows[1][0] < windows[0][1];
    expect(overlap(apart)).toBe(true);
  });
});
