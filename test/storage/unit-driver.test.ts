import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { SqliteUnits } from '../../electron/engine/storage/sqlite/unit-driver';
import { isDuplicateKey, query, tx, type Unit } from '../../electron/engine/storage/unit';
import { tempDir } from '../support/test-engine';

const put = query('put note', 'INSERT INTO notes (id, body) VALUES (@id, @body)');
const one = query<{ id: string; body: string }>('one note', 'SELECT * FROM notes WHERE id = ?');
const ids = query<string>('note ids', 'SELECT id FROM notes ORDER BY id', { pluck: true });
const rename = query('rename notes', "UPDATE notes SET body = body || '!'");

let dir: string;
let db: Db;
let units: SqliteUnits;

beforeEach(() => {
  dir = tempDir();
  db = openDatabase({ dataDir: dir });
  db.exec('CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
  units = new SqliteUnits(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What is in the file, read through a connection of its own: only what was committed. */
function committed(): string[] {
  const other = openDatabase({ dataDir: dir });
  try {
    return other.prepare('SELECT id FROM notes ORDER BY id').pluck().all() as string[];
  } finally {
    other.close();
  }
}

function* putNotes(...names: string[]): Unit<void> {
  for (const id of names) yield* tx.run(put, { id, body: id });
}

describe('the SQLite unit driver', () => {
  it('answers each statement to the unit, which reads its own writes, and commits what it wrote', () => {
    const answer = units.run(function* () {
      yield* putNotes('a', 'b');
      const changed = yield* tx.run(rename);
      const a = yield* tx.get(one, ['a']);
      const missing = yield* tx.get(one, ['zz']);
      return { changed: changed.changes, a, missing, all: yield* tx.all(ids) };
    });
    expect(answer).toEqual({ changed: 2, a: { id: 'a', body: 'a!' }, missing: undefined, all: ['a', 'b'] });
    expect(committed()).toEqual(['a', 'b']);
  });

  it('writes nothing of a unit that throws halfway, and throws its error to the caller', () => {
    expect(() =>
      units.run(function* () {
        yield* putNotes('a', 'b');
        throw new Error('halfway');
      }),
    ).toThrow('halfway');
    expect(committed()).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });

  it('joins a nested unit to the transaction of the one running it: the outer one failing undoes both', () => {
    expect(() =>
      units.run(function* () {
        yield* putNotes('outer');
        yield* putNotes('nested');
        units.run(() => putNotes('run inside'));
        throw new Error('after the nested ones');
      }),
    ).toThrow('after the nested ones');
    expect(committed()).toEqual([]);
  });

  it('hands a failing statement to the unit, which may catch it and go on', () => {
    const answer = units.run(function* () {
      yield* putNotes('a');
      try {
        yield* putNotes('a');
        return 'no error';
      } catch (error) {
        yield* putNotes('b');
        return isDuplicateKey(error) ? 'duplicate' : String(error);
      }
    });
    expect(answer).toBe('duplicate');
    expect(committed()).toEqual(['a', 'b']);
  });

  it('undoes only a failed savepoint, answering its error, and commits the rest', () => {
    const outcomes = units.run(function* () {
      yield* putNotes('before');
      const failed = yield* tx.savepoint(
        (function* () {
          yield* putNotes('undone');
          throw new Error('this one only');
        })(),
      );
      const kept = yield* tx.savepoint(
        (function* () {
          yield* putNotes('kept');
          return 'fine';
        })(),
      );
      return [failed.ok ? 'ok' : (failed.error as Error).message, kept];
    });
    expect(outcomes).toEqual(['this one only', { ok: true, value: 'fine' }]);
    expect(committed()).toEqual(['before', 'kept']);
  });

  it('tells the change feed what committed units changed, once committed, and nothing of what rolled back', () => {
    const heard: string[] = [];
    units.changes.listen('note', (id, origin) => heard.push(`${id} ${origin}`));
    units.changes.listen('other', (id) => heard.push(`other ${id}`));
    const during = units.run(function* () {
      yield* putNotes('a');
      yield* tx.notify('note', 'a');
      yield* tx.notify('note', 'a');
      yield* tx.savepoint(
        (function* () {
          yield* tx.notify('note', 'undone');
          throw new Error('rolled back');
        })(),
      );
      units.run(function* () {
        yield* tx.notify('other', 'joined');
      });
      return [...heard];
    });
    // Nothing before the commit; then each notice once, in order, and none of the savepoint rolled back.
    expect(during).toEqual([]);
    expect(heard).toEqual(['a here', 'other joined']);

    heard.length = 0;
    expect(() =>
      units.run(function* () {
        yield* tx.notify('note', 'b');
        throw new Error('halfway');
      }),
    ).toThrow('halfway');
    expect(heard).toEqual([]);
    expect(() => units.read(() => tx.notify('note', 'c'))).toThrow('cannot notify');
  });
});
