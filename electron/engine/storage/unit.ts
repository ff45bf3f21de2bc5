/**
 * The transaction interface every storage driver runs. A transactional unit (a commit, a stage, a wipe…) is written
 * once, as a generator: it yields the statements it needs through `tx` and receives their results, so the SQLite driver
 * can step it synchronously inside one `db.transaction` and an asynchronous driver can await each statement between
 * BEGIN and COMMIT, running the same unit again on a serialization failure. A unit does nothing but compute and yield:
 * it may be run more than once, so what it tells the world (caches, events to listeners) its caller does once it has
 * committed.
 */

import type { ChangeFeed, ChangeNotice } from './change-feed';

/**
 * One named statement. `sql` is SQLite's, with `@name` parameters (or `?`s, bound in order); `postgres` is given where
 * the dialects differ. `pluck` answers each row's first column instead of the row.
 */
export interface Query<Row = unknown> {
  readonly name: string;
  readonly sql: string;
  readonly postgres?: string;
  readonly pluck?: boolean;
  /** Built for one call (a search, whose SQL varies with its filter): prepared for it alone, never kept. */
  readonly adHoc?: boolean;
  /** Carries the row type only; never set. */
  readonly row?: Row;
}

/** Defines a query once, at module level: drivers prepare and cache it by identity. */
export const query = <Row = unknown>(name: string, sql: string, options: { postgres?: string; pluck?: boolean; adHoc?: boolean } = {}): Query<Row> => ({
  name,
  sql,
  ...options,
});

/** The database a statement is written for. */
export type SqlDialect = 'sqlite' | 'postgres';

/** Named parameters (an object), or parameters in order (an array). */
export type Params = object;

/** What a `run` changed: how many rows. */
export interface RunResult {
  changes: number;
}

/** How a savepoint's unit ended: its value, or what it threw (its writes then undone, the enclosing unit's kept). */
export type Attempt<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * What a unit yields: a statement to execute, a unit to run within a savepoint of the current transaction, a notice
 * of a change for the change feed once the transaction commits, or keys to hold until the transaction ends.
 */
export type Step =
  | { readonly op: 'get' | 'all' | 'run'; readonly query: Query; readonly params: Params | undefined }
  | { readonly op: 'savepoint'; readonly unit: Unit<unknown> }
  | { readonly op: 'notify'; readonly notice: ChangeNotice }
  | { readonly op: 'lock'; readonly keys: readonly string[] };

/** A transactional unit answering T. A unit nested with `yield*` joins the transaction of the one that runs it. */
export type Unit<T> = Generator<Step, T, unknown>;

/** The statements a unit yields; each answers its result to the unit (a failing statement throws inside the unit). */
export const tx = {
  /** The first row, or undefined. */
  *get<Row>(q: Query<Row>, params?: Params): Unit<Row | undefined> {
    return (yield { op: 'get', query: q, params }) as Row | undefined;
  },
  *all<Row>(q: Query<Row>, params?: Params): Unit<Row[]> {
    return (yield { op: 'all', query: q, params }) as Row[];
  },
  *run(q: Query, params?: Params): Unit<RunResult> {
    return (yield { op: 'run', query: q, params }) as RunResult;
  },
  /** Runs `unit` in a savepoint: if it throws, its own writes are undone and the enclosing unit goes on. */
  *savepoint<T>(unit: Unit<T>): Unit<Attempt<T>> {
    return (yield { op: 'savepoint', unit }) as Attempt<T>;
  },
  /**
   * Tells the change feed's listeners, in this process and every replica, that `id` on `channel` changed, once the
   * transaction commits; a savepoint or transaction rolled back takes its notices with it.
   */
  *notify(channel: string, id: string): Unit<void> {
    yield { op: 'notify', notice: { channel, id } };
  },
  /**
   * Holds each of `keys` (a token's, say) until the transaction ends, waiting for a unit holding one elsewhere: units
   * that decide from what they read about a key take turns on it across replicas, while units on other keys go on.
   * SQLite's one writer holds every key already; PostgreSQL takes transaction-level advisory locks.
   */
  *lock(keys: readonly string[]): Unit<void> {
    yield { op: 'lock', keys };
  },
};

export const LOCK_IN_READ = 'A unit run as a read cannot hold a lock: run it with run()';

/** Runs units in transactions of the embedded database: synchronously, so callers on the hot path stay synchronous. */
export interface UnitRunner {
  /**
   * Runs the unit `start` makes in one transaction and answers its value once committed; what it throws rolls all of
   * it back and is thrown here. Called while another unit runs on this runner, it joins that one's transaction.
   */
  run<T>(start: () => Unit<T>): T;
  /** Runs a unit that only reads and needs no snapshot across its statements, without a transaction of its own. */
  read<T>(start: () => Unit<T>): T;
  /** The notices of the units it committed, as soon as each commits. */
  readonly changes: ChangeFeed;
}

/**
 * The same for a database across the network (PostgreSQL): each statement is awaited, and the whole unit runs again,
 * from a new generator, when the database refuses its commit for a serialization failure.
 */
export interface AsyncUnitRunner {
  run<T>(start: () => Unit<T>): Promise<T>;
  read<T>(start: () => Unit<T>): Promise<T>;
  /** The notices of the units it committed (before `run` resolves), and of other replicas' as they arrive. */
  readonly changes: ChangeFeed;
}

/** Either driver's runner, for code that awaits its answer: SQLite's answers at once, PostgreSQL's later. */
export type AnyUnitRunner = UnitRunner | AsyncUnitRunner;

/**
 * What a store over runner `R` answers for a T: T itself over SQLite's, whose callers stay synchronous, a Promise over
 * PostgreSQL's; code written for either (`R` as AnyUnitRunner) gets `T | Promise<T>` and awaits it, or hands it to
 * `afterRun`.
 */
export type Answer<R extends AnyUnitRunner, T> = R extends UnitRunner ? T : Promise<T>;

/**
 * `after` on a runner's answer: in the same turn for SQLite's, which answers at once, so what follows a commit (a
 * store's memory) changes with it as it did when stores were synchronous; once the answer arrives for PostgreSQL's.
 */
export function afterRun<T, R>(answer: T | Promise<T>, after: (value: T) => R): R | Promise<R> {
  return answer instanceof Promise ? answer.then(after) : after(answer);
}

/** Two runners' answers as one: at once when both are, else a Promise of both. */
export const bothOf = <A, B>(a: A | Promise<A>, b: B | Promise<B>): [A, B] | Promise<[A, B]> =>
  a instanceof Promise || b instanceof Promise ? Promise.all([a, b]) : [a, b];

/** `afterRun` for a store over runner `R`: its answer typed as that runner's (see Answer). */
export const answerOf = <Run extends AnyUnitRunner, T, R>(answer: T | Promise<T>, after: (value: T) => R): Answer<Run, R> =>
  afterRun(answer, after) as Answer<Run, R>;

/** Whether a failed statement inserted a primary key that was taken, whichever driver ran it. */
export function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // SQLite's extended result code; PostgreSQL's SQLSTATE unique_violation.
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
