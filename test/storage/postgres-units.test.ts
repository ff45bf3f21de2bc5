import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { type SqliteUnits, unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { query, tx, type Unit } from '../../electron/engine/storage/unit';
import { anyLive, endTransaction, holdersOf, stagedWrites, stageWrites } from '../../electron/engine/transactions/transaction-store';
import { applyTokenWrites, idTaken, removeExpired, UnitTokenStore, type StoredToken, type TokenStore, type TokenWrite } from '../../electron/engine/vault/token-store';
import { describePostgres, freshDatabase } from '../support/postgres-suite';
import { tempDir } from '../support/test-engine';

const TENANT = 'tenant-1';
const openTransaction = query('open transaction', `INSERT INTO transactions (id, state, created_by, created_at, expires_at)
  VALUES (@id, 'open', 'app-1', '2026-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')`);
const every = {
  tokens: query('every token', 'SELECT id, type, containers, metadata, mask, fingerprint, expires_at, created_at, modified_at FROM tokens ORDER BY id'),
  terms: query('every term', 'SELECT token_id, term_hash FROM token_search_terms ORDER BY token_id, term_hash'),
  transactions: query('every transaction', 'SELECT id, state, ended_at FROM transactions ORDER BY id'),
  staged: query('every staged write', 'SELECT transaction_id, seq, op, token_id, sealed IS NULL AS forgotten FROM transaction_writes ORDER BY transaction_id, seq', {
    postgres: 'SELECT transaction_id, seq, op, token_id, (sealed IS NULL)::int AS forgotten FROM transaction_writes ORDER BY transaction_id, seq',
  }),
};

const token = (id: string, data: string, expiresAt: string | null = null): StoredToken => ({
  id,
  tenant_id: TENANT,
  type: 'card',
  data: { number: data },
  containers: ['/a'],
  metadata: { owner: id },
  mask: null,
  fingerprint: `fp-${data}`,
  fingerprint_expression: null,
  search_indexes: [],
  expires_at: expiresAt,
  created_by: 'app-1',
  created_at: '2026-01-01T00:00:00.000Z',
  modified_by: null,
  modified_at: null,
});
const create = (t: StoredToken): TokenWrite => ({ op: 'create', token: t, searchTerms: [`term-${t.id}`] });

let dir: string;
let db: Db;
let pool: pg.Pool;
let sqlite: SqliteUnits;
let postgres: PostgresUnits;
let store: TokenStore;
const sealer = new Sealer(randomBytes(32));

beforeAll(async () => {
  dir = tempDir();
  db = openDatabase({ dataDir: dir });
  sqlite = unitsOf(db);
  // No subscription wants an event, so the outbox stores none on either side.
  store = new UnitTokenStore(sqlite, sealer, new EventOutbox(sqlite, TENANT));
  pool = openPostgresPool(await freshDatabase('units'));
  await migratePostgres(pool);
  postgres = new PostgresUnits(pool);
});
afterAll(async () => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
});

/** The unit `start` makes run on the SQLite file, then on the PostgreSQL database: both answers. */
async function both<T>(start: () => Unit<T>): Promise<[T, T]> {
  return [sqlite.run(start), await postgres.run(start)];
}
/** What each database holds, read by one unit on both. */
const rows = () =>
  both(function* () {
    const held: Record<string, unknown> = {};
    for (const [name, q] of Object.entries(every)) held[name] = yield* tx.all(q);
    return held;
  });

describePostgres('the same units on SQLite and PostgreSQL', () => {
  it('write tokens directly, stage a transaction, read what it holds and end it, to the same answers and rows', async () => {
    const { writing } = store;
    const expired = token('t-expired', '4111', '2020-01-01T00:00:00.000Z');
    expect(await both(() => applyTokenWrites(writing, [create(token('t-a', '4000')), create(token('t-b', '4001')), create(expired)]))).toEqual([undefined, undefined]);
    expect(await both(() => idTaken('t-a'))).toEqual([true, true]);
    expect(await both(() => idTaken('t-expired'))).toEqual([false, false]);

    await both(() => tx.run(openTransaction, { id: 'tr-1' }));
    const staged: TokenWrite[] = [
      { op: 'update', token: { ...token('t-a', '5000'), modified_at: '2026-02-01T00:00:00.000Z' }, searchTerms: ['term-new'] },
      { op: 'delete', id: 't-b' },
      create(token('t-c', '4002')),
    ];
    await both(() => stageWrites(sealer, 'tr-1', staged, 'app-1'));
    const now = new Date().toISOString();
    expect(await both(() => holdersOf('t-a', now))).toEqual([['tr-1'], ['tr-1']]);
    expect(await both(() => anyLive(now))).toEqual([true, true]);
    const [fromSqlite, fromPostgres] = await both(() => stagedWrites(sealer, 'tr-1'));
    expect(fromSqlite).toEqual(staged);
    expect(fromPostgres).toEqual(staged);

    await both(function* () {
      yield* applyTokenWrites(writing, yield* stagedWrites(sealer, 'tr-1'));
      return yield* endTransaction('tr-1', 'committed', '2026-03-01T00:00:00.000Z');
    });
    expect(await both(() => endTransaction('tr-1', 'rolled_back', '2026-03-02T00:00:00.000Z'))).toEqual([false, false]);
    expect(await both(() => removeExpired(writing.outbox, null))).toEqual([1, 1]);

    const [inSqlite, inPostgres] = await rows();
    expect(inPostgres).toEqual(inSqlite);
    expect(inSqlite.transactions).toEqual([{ id: 'tr-1', state: 'committed', ended_at: '2026-03-01T00:00:00.000Z' }]);
    expect((inSqlite.tokens as { id: string }[]).map((t) => t.id)).toEqual(['t-a', 't-c']);
  });

  it('create a token over the id of an expired one on both, through the failed insert the unit catches', async () => {
    const { writing } = store;
    await both(() => applyTokenWrites(writing, [create(token('t-reused', '4200', '2020-01-01T00:00:00.000Z'))]));
    await both(() => applyTokenWrites(writing, [create(token('t-reused', '4201'))]));
    const [inSqlite, inPostgres] = await rows();
    expect(inPostgres).toEqual(inSqlite);
    expect((inSqlite.tokens as { id: string; expires_at: string | null }[]).find((t) => t.id === 't-reused')?.expires_at).toBeNull();
  });
});
