import type { Statement } from 'better-sqlite3';
import { ChangeFeed, NOTIFY_IN_READ, type ChangeNotice } from '../change-feed';
import type { Db } from '../database';
import { type Attempt, LOCK_IN_READ, type Query, type Step, type Unit, type UnitRunner } from '../unit';

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
  readonly changes = new ChangeFeed();
  /** The notices of the transaction a unit runs in (null: none runs), handed to the feed when it commits. */
  private notices: ChangeNotice[] | null = null;

  constructor(readonly db: Db) {
    this.inTransaction = db.transaction((unit: Unit<unknown>) => this.step(unit));
  }

  run<T>(start: () => Unit<T>): T {
    if (this.notices !== null) return this.kept(() => this.inTransaction(start()) as T);
    const notices: ChangeNotice[] = (this.notices = []);
    let value: T;
    try {
      value = this.inTransaction(start()) as T;
    } finally {
      this.notices = null;
    }
    // Only once committed: a unit that threw rolled back, and took its notices with it.
    this.changes.deliver(notices, 'here');
    return value;
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
    if (step.op === 'notify') {
      if (this.notices === null) throw new Error(NOTIFY_IN_READ);
      this.notices.push(step.notice);
      return undefined;
    }
    if (step.op === 'lock') {
      if (this.notices === null) throw new Error(LOCK_IN_READ);
      return undefined;
    }
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
      return { ok: true, value: this.kept(() => this.inTransaction(unit)) };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Runs a savepoint's work: if it throws, the notices it added go with its writes. */
  private kept<T>(work: () => T): T {
    const notices = this.notices;
    const mark = notices?.length ?? 0;
    try {
      return work();
    } catch (error) {
      if (notices) notices.length = mark;
      throw error;
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
