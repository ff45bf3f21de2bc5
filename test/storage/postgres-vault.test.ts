import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { IdempotencyStore } from '../../electron/engine/server/idempotency';
import { ApiProblem } from '../../electron/engine/server/problem';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { type SqliteUnits, unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { type AnyUnitRunner, query, tx } from '../../electron/engine/storage/unit';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { UnitTransactionStore } from '../../electron/engine/transactions/transaction-store';
import { TransactionWriter } from '../../electron/engine/transactions/transaction-writer';
import { applyTokenWrites, UnitTokenStore, type StoredToken, type TokenWrite } from '../../electron/engine/vault/token-store';
import type { WriteContext } from '../../electron/engine/vault/token-service';
import { describePostgres, freshDatabase } from '../support/postgres-suite';
import { storedToken } from '../support/stored-token';
import { tempDir } from '../support/test-engine';

// The transaction manager, its writer and the idempotent request are the same classes over either runner. The token
// store here is one over SQLite: on PostgreSQL the commit uses only its write unit's parts (sealing, events).

const TENANT = 'tenant-1';
const caller = systemCaller(TENANT, { id: 'app-1', name: 'App' });
const every = {
  tokens: query<{ id: string }>('vault test: every token', 'SELECT id FROM tokens ORDER BY id'),
  transactions: query<{ state: string }>('vault test: every transaction state', 'SELECT state FROM transactions ORDER BY created_at, id'),
  staged: query<{ token_id: string }>('vault test: every staged write', 'SELECT token_id FROM transaction_writes ORDER BY token_id'),
};

const token = (id: string): StoredToken => storedToken(id);
const create = (id: string): TokenWrite => ({ op: 'create', token: token(id), searchTerms: [] });

interface Side {
  name: string;
  units: AnyUnitRunner;
  transactions: TransactionManager<{ units: AnyUnitRunner; sealer: Sealer }>;
  writer: TransactionWriter;
  idempotency: IdempotencyStore;
}

let dir: string;
let db: Db;
let pool: pg.Pool;
let tokenStore: UnitTokenStore<SqliteUnits>;
const sides: Side[] = [];
const sealer = new Sealer(randomBytes(32));

beforeAll(async () => {
  dir = tempDir();
  db = openDatabase({ dataDir: dir });
  const sqlite = unitsOf(db);
  // No subscription wants an event, so the outbox stores none on either side.
  tokenStore = new UnitTokenStore(sqlite, sealer, new EventOutbox(sqlite, TENANT));
  pool = openPostgresPool(await freshDatabase('vault'));
  await migratePostgres(pool);
  const postgres = new PostgresUnits(pool);
  const side = (name: string, units: AnyUnitRunner, store: { units: AnyUnitRunner; sealer: Sealer }): Side => {
    const transactions = new TransactionManager(store, tokenStore, 60);
    return { name, units, transactions, writer: new TransactionWriter(transactions, tokenStore, 'BT-TRANSACTION-ID'), idempotency: new IdempotencyStore(units, sealer) };
  };
  sides.push(side('SQLite', sqlite, new UnitTransactionStore(sqlite, sealer)), side('PostgreSQL', postgres, { units: postgres, sealer }));
});
afterAll(async () => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
});

/** What `run` answers on each side, or the status of the ApiProblem it throws. */
async function onBoth<T>(run: (side: Side) => Promise<T>): Promise<(T | number)[]> {
  const answers: (T | number)[] = [];
  for (const side of sides) {
    try {
      answers.push(await run(side));
    } catch (error) {
      if (!(error instanceof ApiProblem)) throw error;
      answers.push(error.status);
    }
  }
  return answers;
}

/** Stages `writes` in the open transaction `id` as a request enlisting in it does. */
async function stage({ units, writer }: Side, id: string, writes: TokenWrite[]): Promise<void> {
  const context: WriteContext = { caller, transactionId: id, cause: null };
  const target = await writer.target(context);
  let landed = false;
  try {
    await units.run(() => target.unit(writes));
    landed = true;
  } finally {
    target.settle(writes, landed);
  }
}

/** What each side's database holds: its tokens, its transactions' states and its staged writes' tokens. */
async function held() {
  const rows = [];
  for (const { units } of sides) {
    rows.push(
      await units.read(function* () {
        return {
          tokens: (yield* tx.all(every.tokens)).map((row) => row.id),
          transactions: (yield* tx.all(every.transactions)).map((row) => row.state),
          staged: (yield* tx.all(every.staged)).map((row) => row.token_id),
        };
      }),
    );
  }
  return rows;
}

describePostgres('the vault services over SQLite and PostgreSQL', () => {
  it('open a transaction, stage in it, commit it, roll another back: the same answers and rows on both', async () => {
    const [first, second] = await onBoth(async ({ transactions }) => (await transactions.create(caller)).id);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    const ids = new Map(sides.map((side, i) => [side, (i === 0 ? first : second) as string]));

    await onBoth((side) => stage(side, ids.get(side)!, [create('t-committed'), create('t-kept')]));
    expect(await onBoth(async (side) => (await side.transactions.requireOpen(ids.get(side)!, 'id')).state)).toEqual(['open', 'open']);
    // A write found its way into the transaction before the commit, and lands after it.
    const late = new Map(await Promise.all(sides.map(async (side) => [side, await side.writer.target({ caller, transactionId: ids.get(side)!, cause: null })] as const)));
    expect(await onBoth((side) => side.transactions.commit(ids.get(side)!))).toEqual([undefined, undefined]);
    expect(await onBoth(async (side) => side.units.run(() => late.get(side)!.unit([create('t-after-commit')])))).toEqual([409, 409]);
    // Ended: neither a second commit, a rollback nor a write staged in it.
    expect(await onBoth((side) => side.transactions.commit(ids.get(side)!))).toEqual([409, 409]);
    expect(await onBoth((side) => side.transactions.rollback(ids.get(side)!))).toEqual([409, 409]);
    expect(await onBoth((side) => stage(side, ids.get(side)!, [create('t-late')]))).toEqual([409, 409]);

    const rolledBack = await onBoth(async (side) => {
      const { id } = await side.transactions.create(caller);
      await stage(side, id, [create('t-rolled-back')]);
      await side.transactions.rollback(id);
      return id;
    });
    expect(rolledBack.every((id) => typeof id === 'string')).toBe(true);
    expect(await onBoth((side) => side.transactions.requireOpen('not a uuid', 'id'))).toEqual([400, 400]);
    expect(await onBoth((side) => side.transactions.requireOpen(randomUUID(), 'id'))).toEqual([404, 404]);

    const [inSqlite, inPostgres] = await held();
    expect(inPostgres).toEqual(inSqlite);
    expect(inSqlite).toEqual({ tokens: ['t-committed', 't-kept'], transactions: ['committed', 'rolled_back'], staged: ['t-committed', 't-kept', 't-rolled-back'] });
  });

  it('refuse a commit whose staged create lost its id, leaving the transaction open and nothing applied', async () => {
    const ids = new Map<Side, string>();
    await onBoth(async (side) => {
      const { id } = await side.transactions.create(caller);
      await stage(side, id, [create('t-first'), create('t-taken')]);
      ids.set(side, id);
    });
    // The id is taken outside the transaction and its locks, as the seed at start-up may.
    await onBoth(async ({ units }) => units.run(() => applyTokenWrites(tokenStore.writing, [create('t-taken')])));
    expect(await onBoth((side) => side.transactions.commit(ids.get(side)!))).toEqual([409, 409]);
    const [inSqlite, inPostgres] = await held();
    expect(inPostgres).toEqual(inSqlite);
    expect(inSqlite.tokens).toContain('t-taken');
    expect(inSqlite.tokens).not.toContain('t-first');
    expect(await onBoth(async (side) => (await side.transactions.requireOpen(ids.get(side)!, 'id')).state)).toEqual(['open', 'open']);
  });

  it('answer an idempotent request once, replay it, and refuse its key for another path', async () => {
    let runs = 0;
    const scope = { applicationId: 'app-1', key: 'k-1', method: 'POST', path: '/tokens' };
    const handler = () => Promise.resolve({ status: 201, body: { id: `made-${++runs}` } });
    expect(await onBoth(({ idempotency }) => idempotency.run(scope, handler))).toEqual([
      { status: 201, body: { id: 'made-1' } },
      { status: 201, body: { id: 'made-2' } },
    ]);
    expect(await onBoth(({ idempotency }) => idempotency.run(scope, handler))).toEqual([
      { status: 201, body: { id: 'made-1' }, replayed: true },
      { status: 201, body: { id: 'made-2' }, replayed: true },
    ]);
    expect(await onBoth(({ idempotency }) => idempotency.run({ ...scope, path: '/tokenize' }, handler))).toEqual([422, 422]);
    expect(runs).toBe(2);
    // A repeat while the first is still running is refused, on either database.
    const slow = { ...scope, key: 'k-2' };
    expect(
      await onBoth(async ({ idempotency }) => {
        let began = (): void => undefined;
        let finish = (): void => undefined;
        const running = new Promise<void>((resolve) => (began = resolve));
        const first = idempotency.run(slow, () => {
          began();
          return new Promise((resolve) => (finish = () => resolve({ status: 200 })));
        });
        await running;
        const repeat = await idempotency.run(slow, handler).then(
          () => 'ran',
          (error: unknown) => (error instanceof ApiProblem ? error.status : 'failed'),
        );
        finish();
        await first;
        return repeat;
      }),
    ).toEqual([409, 409]);
    // A failed request gives its key back: a retry runs again.
    const failing = { ...scope, key: 'k-3' };
    expect(await onBoth(({ idempotency }) => idempotency.run(failing, () => Promise.resolve({ status: 400, body: {} })))).toEqual([
      { status: 400, body: {} },
      { status: 400, body: {} },
    ]);
    expect(await onBoth(({ idempotency }) => idempotency.run(failing, handler))).toEqual([
      { status: 201, body: { id: 'made-3' } },
      { status: 201, body: { id: 'made-4' } },
    ]);
  });
});
