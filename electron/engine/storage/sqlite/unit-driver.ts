import type { Statement } from 'better-sqlite3';
import type { Db } from '../database';
import type { Attempt, Query, Step, Unit, UnitRunner } from '../unit';

const NO_ARGS: readonly unknown[] = [];

const runners = new WeakMap<Db, SqliteUnits>();

/** The connection's one runner, so every store on it shares its prepared statements and its open transaction. */
export function unitsOf(db: Db): SqliteUnits {
  let units = runners.get(db);
  if (!units) {
    units = new SqliteUnits(db);
    runners.set(db, units);
  }
  return units;
}

/**
 * Steps units synchronously inside better-sqlite3's `db.transaction`, each query prepared once and kept, so a unit
 * costs what the same statements written inline cost. A unit run inside another (or inside any `db.transaction`), and
 * a unit's savepoint, become SQLite savepoints of the transaction already open.
 */
export class SqliteUnits implements UnitRunner {
  private readonly statements = new Map<Query, Statement>();
  private readonly inTransaction: (unit: Unit<unknown>) => unknown;

  constructor(readonly db: Db) {
    this.inTransaction = db.transaction((unit: Unit<unknown>) => this.step(unit));
  }

  run<T>(start: () => Unit<T>): T {
    return this.inTransaction(start()) as T;
  }

  read<T>(start: () => Unit<T>): T {
    return this.step(start()) as T;
  }

  private step(unit: Unit<unknown>): unknown {
    let next = unit.next();
    while (!next.done) {
      let result: unknown;
      try {
        result = this.execute(next.value);
      } catch (error) {
        next = unit.throw(error);
        continue;
      }
      next = unit.next(result);
    }
    return next.value;
  }

  private execute(step: Step): unknown {
    if (step.op === 'savepoint') return this.attempt(step.unit);
    const statement = this.prepared(step.query);
    const { params } = step;
    const args = params === undefined ? NO_ARGS : Array.isArray(params) ? params : [params];
    if (step.op === 'get') return statement.get(...args);
    if (step.op === 'all') return statement.all(...args);
    return { changes: statement.run(...args).changes };
  }

  /** Nested in the open transaction, better-sqlite3's transaction is a savepoint. */
  private attempt(unit: Unit<unknown>): Attempt<unknown> {
    try {
      return { ok: true, value: this.inTransaction(unit) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  private prepared(q: Query): Statement {
    let statement = this.statements.get(q);
    if (!statement) {
      statement = this.db.prepare(q.sql);
      if (q.pluck) statement.pluck();
      if (!q.adHoc) this.statements.set(q, statement);
    }
    return statement;
  }
}
