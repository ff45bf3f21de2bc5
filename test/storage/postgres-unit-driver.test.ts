import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { NotifyChannel } from '../../electron/engine/storage/postgres/notify-channel';
import { StatementTranslationError } from '../../electron/engine/storage/postgres/statements';
import { CHANGES_CHANNEL, PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { isDuplicateKey, query, tx, type Unit } from '../../electron/engine/storage/unit';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

const put = query('put note', 'INSERT INTO notes (id, body) VALUES (@id, @body)');
const one = query<{ id: string; body: string }>('one note', 'SELECT * FROM notes WHERE id = ?');
const ids = query<string>('note ids', 'SELECT id FROM notes ORDER BY id', { pluck: true });
const counter = query<{ n: number }>('read counter', 'SELECT n FROM counter WHERE id = 1');
const bump = query('bump counter', 'UPDATE counter SET n = ? WHERE id = 1');
const serializable = query('serializable', 'SELECT 1', { postgres: 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE' });
const pause = query('pause', 'SELECT 1', { postgres: 'SELECT pg_sleep(0.2)' });
const lockNote = query('lock note', 'SELECT 1', { postgres: "UPDATE notes SET body = body || '.' WHERE id = $1" });

let pool: pg.Pool;
let units: PostgresUnits;

beforeAll(async () => {
  pool = openPostgresPool(await freshDatabase('unit_driver'));
  // A deadlock is found after deadlock_timeout: short here, so the test waits a moment, not a second.
  await pool.query(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = %L', current_database(), '50ms'); END $$`);
  await pool.end();
  pool = openPostgresPool(pool.options.connectionString!);
  await pool.query('CREATE TABLE notes (id TEXT COLLATE "C" PRIMARY KEY, body TEXT NOT NULL); CREATE TABLE counter (id INTEGER PRIMARY KEY, n BIGINT NOT NULL)');
  units = new PostgresUnits(pool);
});
beforeEach(() => pool.query('TRUNCATE notes, counter; INSERT INTO counter VALUES (1, 0)'));
afterAll(() => pool.end());

/** What the database holds, read on a connection of the pool's own: only what was committed. */
const committed = async () => (await pool.query<{ id: string }>('SELECT id FROM notes ORDER BY id')).rows.map((r) => r.id);
const openTransactions = async () =>
  (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'")).rows[0].n;

function* putNotes(...names: string[]): Unit<void> {
  for (const id of names) yield* tx.run(put, { id, body: id });
}

describePostgres('the PostgreSQL unit driver', () => {
  it('writes nothing of a unit that throws halfway, and throws its error to the caller', async () => {
    await expect(
      units.run(function* () {
        yield* putNotes('a', 'b');
        throw new Error('halfway');
      }),
    ).rejects.toThrow('halfway');
    expect(await committed()).toEqual([]);
    expect(await openTransactions()).toBe(0);
  });

  it('joins a unit run from within a unit to its transaction: the outer one failing undoes both', async () => {
    let inner: Promise<void> | undefined;
    await expect(
      units.run(function* () {
        yield* putNotes('outer');
        inner = units.run(() => putNotes('run inside'));
        // The joined unit ran before this statement: its write is visible here.
        const seen = yield* tx.all(ids);
        if (seen.includes('run inside')) throw new Error('after the joined one');
      }),
    ).rejects.toThrow('after the joined one');
    await inner;
    expect(await committed()).toEqual([]);
  });

  it('hands a failing statement to the unit, which may catch it and go on, keeping what it wrote before', async () => {
    const replace = query('replace note', 'UPDATE notes SET body = @body WHERE id = @id');
    const answer = await units.run(function* () {
      yield* putNotes('a', 'b');
      let outcome = 'inserted';
      try {
        yield* tx.run(put, { id: 'a', body: 'second' });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        outcome = `replaced ${(yield* tx.run(replace, { id: 'a', body: 'second' })).changes}`;
      }
      return { outcome, a: yield* tx.get(one, ['a']) };
    });
    expect(answer).toEqual({ outcome: 'replaced 1', a: { id: 'a', body: 'second' } });
    expect(await committed()).toEqual(['a', 'b']);
  });

  it('undoes only a failed savepoint, answering its error, and commits the rest', async () => {
    const outcomes = await units.run(function* () {
      yield* putNotes('before');
      const failed = yield* tx.savepoint(
        (function* () {
          yield* putNotes('undone');
          yield* putNotes('before');
          return 'not reached';
        })(),
      );
      const kept = yield* tx.savepoint(
        (function* () {
          yield* putNotes('kept');
          return 'fine';
        })(),
      );
      return [failed.ok ? 'ok' : isDuplicateKey(failed.error), kept];
    });
    expect(outcomes).toEqual([true, { ok: true, value: 'fine' }]);
    expect(await committed()).toEqual(['before', 'kept']);
  });

  it('runs a unit again after a serialization failure, so two racing ones end as one after the other would', async () => {
    let runs = 0;
    const increment = () => {
      runs += 1;
      return (function* () {
        yield* tx.run(serializable);
        const { n } = (yield* tx.get(counter))!;
        yield* tx.get(pause);
        yield* tx.run(bump, [n + 1]);
        return n + 1;
      })();
    };
    const answers = await Promise.all([units.run(increment), units.run(increment)]);
    expect(answers.sort()).toEqual([1, 2]);
    expect((await pool.query('SELECT n FROM counter')).rows).toEqual([{ n: 2 }]);
    expect(runs).toBe(3);
  });

  it('runs a unit again after a deadlock, and both commit', async () => {
    await units.run(() => putNotes('x', 'y'));
    const crosswise = (first: string, second: string) =>
      function* () {
        yield* tx.run(lockNote, [first]);
        yield* tx.get(pause);
        yield* tx.run(lockNote, [second]);
      };
    await Promise.all([units.run(crosswise('x', 'y')), units.run(crosswise('y', 'x'))]);
    expect((await pool.query('SELECT body FROM notes ORDER BY id')).rows).toEqual([{ body: 'x..' }, { body: 'y..' }]);
  });

  it('reads without a transaction, answering plucked columns and BIGINTs as numbers', async () => {
    await units.run(() => putNotes('a'));
    expect(await units.read(() => tx.all(ids))).toEqual(['a']);
    expect(await units.read(() => tx.get(counter))).toEqual({ n: 0 });
  });

  it('refuses at first use a query whose SQLite text it cannot translate safely', async () => {
    const literal = query('literal', "SELECT id FROM notes WHERE body = '?' OR id = ?");
    await expect(units.read(() => tx.all(literal, ['a']))).rejects.toThrow(StatementTranslationError);
    const mixed = query('mixed', 'SELECT id FROM notes WHERE body = @body OR id = ?');
    await expect(units.read(() => tx.all(mixed, ['a']))).rejects.toThrow(StatementTranslationError);
  });

  it("gives PostgreSQL a unit's closing notices with its COMMIT, in one round trip, and every replica hears them", async () => {
    // A pool of its own whose clients note each command they send.
    const noted = openPostgresPool(pool.options.connectionString!);
    const sent: string[] = [];
    noted.on('connect', (client) => {
      const send = client.query.bind(client) as (...args: unknown[]) => unknown;
      Object.assign(client, {
        query: (...args: unknown[]) => {
          sent.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
          return send(...args);
        },
      });
    });
    const listener = await pool.connect();
    const heard: string[] = [];
    listener.on('notification', ({ payload = '' }) => heard.push(payload.split(' ').slice(1).join(' ')));
    await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
    try {
      await new PostgresUnits(noted).run(function* () {
        yield* putNotes('n');
        yield* tx.notify('note', 'n');
        yield* tx.notify('note', "it's");
      });
      expect(sent).toHaveLength(3);
      expect(sent[2]).toMatch(/^SELECT pg_notify\(.*; COMMIT$/);
      await expect.poll(() => heard).toEqual(['note n', "note it's"]);
    } finally {
      await listener.query(`UNLISTEN ${CHANGES_CHANNEL}`);
      listener.release();
      await noted.end();
    }
  });

  it("tells this replica's feed at commit, and another replica's feed as its notify connection hears it; nothing rolled back", async () => {
    const other = new PostgresUnits(pool);
    // Each replica has its own notify connection.
    const channels = [new NotifyChannel(pool.options.connectionString!), new NotifyChannel(pool.options.connectionString!)];
    await Promise.all(channels.map((c) => c.start()));
    const stops = [await units.hear(channels[0]), await other.hear(channels[1])];
    const here: string[] = [];
    const there: string[] = [];
    units.changes.listen('note', (id, origin) => here.push(`${id} ${origin}`));
    other.changes.listen('note', (id, origin) => there.push(`${id} ${origin}`));
    try {
      await units.run(function* () {
        yield* putNotes('a');
        yield* tx.notify('note', 'a');
        const undone = yield* tx.savepoint(
          (function* () {
            yield* tx.notify('note', 'undone');
            throw new Error('rolled back');
          })(),
        );
        expect(undone.ok).toBe(false);
      });
      // This replica's listeners hear it before run() resolves; the other's as PostgreSQL delivers it, once.
      expect(here).toEqual(['a here']);
      await expect.poll(() => there).toEqual(['a elsewhere']);

      await expect(
        units.run(function* () {
          yield* tx.notify('note', 'b');
          throw new Error('halfway');
        }),
      ).rejects.toThrow('halfway');
      await other.run(function* () {
        yield* tx.notify('note', 'from-other');
      });
      await expect.poll(() => here).toEqual(['a here', 'from-other elsewhere']);
      expect(there).toEqual(['a elsewhere', 'from-other here']);
      await expect(units.read(() => tx.notify('note', 'c'))).rejects.toThrow('cannot notify');
    } finally {
      for (const stop of stops) await stop();
      for (const channel of channels) await channel.stop();
    }
  });
});
