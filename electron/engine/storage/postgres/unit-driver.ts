import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ChangeFeed, NOTIFY_IN_READ, type ChangeNotice } from '../change-feed';
import { type Attempt, type AsyncUnitRunner, LOCK_IN_READ, type Step, type Unit } from '../unit';
import type { NotifyChannel } from './notify-channel';
import { postgresStatement, statementValues } from './statements';

/** The one PostgreSQL channel every replica's change notices travel on: `origin channel id`, each without spaces. */
export const CHANGES_CHANNEL = 'tokenbench_changes';

/** SQLSTATEs after which the whole unit runs again: serialization_failure, deadlock_detected. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 6;
/**
 * A unit's keys as transaction-level advisory locks, taken in the order given (a volatile select list is evaluated
 * after ORDER BY); two keys whose hashes meet only take turns more than they need.
 */
const LOCK_KEYS = 'SELECT pg_advisory_xact_lock(hashtextextended(key, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS k(key, at) ORDER BY at';
const BACKOFF_MS = 5;

/**
 * A unit caught a failed statement and went on, but PostgreSQL refuses every statement of a transaction after one
 * failed: the unit runs again from the start with each statement in a savepoint of its own.
 */
class GuardNeeded extends Error {}

/** The database asked for the unit to run again (serialization failure, deadlock). */
class RunAgain extends Error {
  constructor(readonly failure: unknown) {
    super('the transaction runs again');
  }
}

/** Serializes the steps taken on one transaction, so a unit joining it runs between two of its statements. */
class Turns {
  private tail: Promise<void> = Promise.resolve();
  async take<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let done!: () => void;
    this.tail = new Promise((resolve) => (done = resolve));
    await previous;
    try {
      return await work();
    } finally {
      done();
    }
  }
}

/** The open transaction a unit's code runs in: its client, whether it still runs, and how its statements are taken. */
interface Transaction {
  readonly client: pg.PoolClient;
  /** Each statement in a savepoint of its own, so a failed one undoes only itself, as in SQLite. */
  readonly guarded: boolean;
  open: boolean;
  savepoints: number;
  /** Its change notices, handed to this process's feed once it commits (the others hear them from PostgreSQL). */
  readonly notices: ChangeNotice[];
  /** How many of `notices` PostgreSQL was given (`pg_notify`): the others go with the next command (`withNotices`). */
  sent: number;
  /** A signal raised by a unit that joined, which the running unit then raises in turn. */
  signal: GuardNeeded | RunAgain | null;
}

/** One level of a transaction: its own turns, so a unit joining from within a joined unit waits for that one only. */
interface Frame {
  readonly transaction: Transaction;
  readonly turns: Turns;
}

const aborts = (error: unknown) => error instanceof pg.DatabaseError;
const retryable = (error: unknown) => error instanceof pg.DatabaseError && RETRYABLE.has(error.code ?? '');

/**
 * Runs units over a `pg` pool: each in a READ COMMITTED transaction on one pooled client, each statement awaited.
 * READ COMMITTED sees other transactions' commits between statements, so a unit that decides from what it reads takes
 * the row lock that decision needs (`SELECT … FOR UPDATE`, a conditional `UPDATE` whose `changes` it checks, or an
 * advisory lock where no row exists yet). On a serialization failure or deadlock it rolls back and runs the unit again
 * from a new generator, a bounded number of times with jittered backoff. A unit run from within a unit's code joins its
 * transaction as a savepoint, as the SQLite driver does.
 */
export class PostgresUnits implements AsyncUnitRunner {
  private readonly current = new AsyncLocalStorage<Frame>();
  readonly changes = new ChangeFeed();
  /**
   * This runner's name on the changes channel, so it does not hear its own notices twice; the history worker sends
   * this replica's notices under it too.
   */
  readonly origin = randomUUID();

  constructor(readonly pool: pg.Pool) {}

  /**
   * Hands other replicas' change notices, heard on `channel`, to this runner's feed. The channel's owner calls
   * `changes.resync()` when it reconnects: notices sent while it was down are lost.
   */
  hear(channel: NotifyChannel): Promise<() => Promise<void>> {
    return channel.listen(CHANGES_CHANNEL, (payload) => {
      const [origin, channelName, id] = payload.split(' ');
      if (origin !== this.origin && id !== undefined) this.changes.deliver([{ channel: channelName, id }], 'elsewhere');
    });
  }

  async run<T>(start: () => Unit<T>): Promise<T> {
    const frame = this.current.getStore();
    if (frame?.transaction.open) return frame.turns.take(() => this.joined(frame, start));
    return this.transaction(start);
  }

  async read<T>(start: () => Unit<T>): Promise<T> {
    // A client whose connection broke is not queryable, and the pool drops it when it comes back.
    const client = await this.pool.connect();
    try {
      return (await this.stepRead(client, start())) as T;
    } finally {
      client.release();
    }
  }

  private async transaction<T>(start: () => Unit<T>): Promise<T> {
    let guarded = false;
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      const transaction: Transaction = { client, guarded, open: true, savepoints: 0, signal: null, notices: [], sent: 0 };
      let released = false;
      try {
        await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
        const frame: Frame = { transaction, turns: new Turns() };
        const value = await this.step(frame, start());
        await frame.turns.take(async () => {
          raise(transaction);
          const answers: pg.QueryResult | pg.QueryResult[] = await client.query(this.withNotices(transaction, 'COMMIT'));
          if ([answers].flat().at(-1)!.command !== 'COMMIT') throw new Error('PostgreSQL rolled the transaction back at COMMIT');
        });
        transaction.open = false;
        this.changes.deliver(transaction.notices, 'here');
        return value as T;
      } catch (error) {
        transaction.open = false;
        const rolledBack = await client.query('ROLLBACK').then(
          () => true,
          () => false,
        );
        client.release(rolledBack ? undefined : true);
        released = true;
        if (error instanceof GuardNeeded) {
          guarded = true;
        } else if (error instanceof RunAgain || retryable(error)) {
          const failure = error instanceof RunAgain ? error.failure : error;
          if (attempt >= ATTEMPTS) throw failure;
          await sleep(Math.random() * BACKOFF_MS * 2 ** attempt);
        } else {
          throw error;
        }
      } finally {
        if (!released) client.release();
      }
    }
  }

  /** A unit run from another unit's code: a savepoint of that one's transaction, taken between two of its statements. */
  private async joined<T>(outer: Frame, start: () => Unit<T>): Promise<T> {
    const { transaction } = outer;
    if (!transaction.open) return this.transaction(start);
    const attempt = await this.attempt({ transaction, turns: new Turns() }, start());
    if (attempt.ok) return attempt.value as T;
    throw attempt.error;
  }

  /** Steps a unit to its end, awaiting each statement it yields and answering (or throwing) the result into it. */
  private async step(frame: Frame, unit: Unit<unknown>): Promise<unknown> {
    const code = (send: () => IteratorResult<Step, unknown>) => this.current.run(frame, send);
    let next = code(() => unit.next());
    while (!next.done) {
      const step = next.value;
      let result: unknown;
      try {
        result = await frame.turns.take(() => this.execute(frame, step));
      } catch (error) {
        if (error instanceof GuardNeeded || error instanceof RunAgain) throw error;
        if (retryable(error)) throw new RunAgain(error);
        next = code(() => unit.throw(error));
        // The unit caught a statement that aborted the transaction: it cannot go on here.
        if (aborts(error) && !frame.transaction.guarded) throw new GuardNeeded();
        continue;
      }
      next = code(() => unit.next(result));
    }
    return next.value;
  }

  private async execute(frame: Frame, step: Step): Promise<unknown> {
    const { transaction } = frame;
    raise(transaction);
    if (step.op === 'savepoint') {
      const attempt = await this.attempt(frame, step.unit);
      raise(transaction);
      return attempt;
    }
    if (step.op === 'notify') {
      const { channel, id } = step.notice;
      if (/\s/.test(channel + id)) throw new Error(`A change notice's channel and id hold no spaces: "${channel}" "${id}"`);
      // Given to PostgreSQL with the next command, in its round trip when that is the COMMIT or a savepoint's.
      transaction.notices.push(step.notice);
      return undefined;
    }
    // A statement's parameters keep it to a round trip of its own: what waits goes first (guarded: with its savepoint).
    if (transaction.sent < transaction.notices.length && !transaction.guarded) await transaction.client.query(this.withNotices(transaction, ''));
    if (step.op === 'lock') {
      // In one order on every replica, so two units taking the same keys never wait for each other in a cycle.
      await transaction.client.query(LOCK_KEYS, [[...new Set(step.keys)].sort()]);
      return undefined;
    }
    if (!transaction.guarded) return statement(transaction.client, step);
    const name = `tokenbench_statement`;
    await transaction.client.query(this.withNotices(transaction, `SAVEPOINT ${name}`));
    try {
      const result = await statement(transaction.client, step);
      await transaction.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      if (aborts(error) && !retryable(error)) await transaction.client.query(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      throw error;
    }
  }

  /** Runs `unit` in a savepoint: what it throws undoes its own writes only, and is answered, not thrown. */
  private async attempt(frame: Frame, unit: Unit<unknown>): Promise<Attempt<unknown>> {
    const { transaction } = frame;
    const name = `tokenbench_savepoint_${++transaction.savepoints}`;
    const mark = transaction.notices.length;
    await transaction.client.query(this.withNotices(transaction, `SAVEPOINT ${name}`));
    try {
      const value = await this.step({ transaction, turns: new Turns() }, unit);
      await transaction.client.query(this.withNotices(transaction, `RELEASE SAVEPOINT ${name}`));
      return { ok: true, value };
    } catch (error) {
      if (error instanceof GuardNeeded || error instanceof RunAgain || retryable(error)) {
        transaction.signal ??= error instanceof GuardNeeded || error instanceof RunAgain ? error : new RunAgain(error);
        throw transaction.signal;
      }
      await transaction.client.query(`ROLLBACK TO SAVEPOINT ${name}; RELEASE SAVEPOINT ${name}`);
      // What the savepoint notified goes with it, given to PostgreSQL or not yet.
      transaction.notices.length = mark;
      transaction.sent = Math.min(transaction.sent, mark);
      return { ok: false, error };
    }
  }

  /**
   * `command` (parameterless: a COMMIT, a savepoint's, or none) preceded by the `pg_notify` of each notice not yet given
   * to PostgreSQL, in one round trip: PostgreSQL sends them at the commit, in order, and drops those of a savepoint
   * rolled back. A notice rarely needs a round trip of its own, since most units notify last, before the COMMIT.
   */
  private withNotices(transaction: Transaction, command: string): string {
    const unsent = transaction.notices.slice(transaction.sent);
    transaction.sent = transaction.notices.length;
    if (unsent.length === 0) return command;
    const { client } = transaction;
    const calls = unsent.map(({ channel, id }) => `pg_notify(${client.escapeLiteral(CHANGES_CHANNEL)}, ${client.escapeLiteral(`${this.origin} ${channel} ${id}`)})`);
    return `SELECT ${calls.join(', ')};${command === '' ? '' : ` ${command}`}`;
  }

  /**
   * A read unit's statements, each on its own outside a transaction; a savepoint there runs its unit in a transaction
   * of its own on the same client, as SQLite's reader does.
   */
  private async stepRead(client: pg.PoolClient, unit: Unit<unknown>): Promise<unknown> {
    let next = unit.next();
    while (!next.done) {
      const step = next.value;
      let result: unknown;
      try {
        if (step.op === 'notify') throw new Error(NOTIFY_IN_READ);
        if (step.op === 'lock') throw new Error(LOCK_IN_READ);
        result = step.op === 'savepoint' ? await this.readAttempt(client, step.unit) : await statement(client, step);
      } catch (error) {
        next = unit.throw(error);
        continue;
      }
      next = unit.next(result);
    }
    return next.value;
  }

  private async readAttempt(client: pg.PoolClient, unit: Unit<unknown>): Promise<Attempt<unknown>> {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      const value = await this.stepRead(client, unit);
      await client.query('COMMIT');
      return { ok: true, value };
    } catch (error) {
      await client.query('ROLLBACK');
      return { ok: false, error };
    }
  }
}

/** Raises, in the running unit, what a unit that joined its transaction raised. */
function raise(transaction: Transaction): void {
  if (transaction.signal) throw transaction.signal;
}

/** One yielded statement on `client`, answered as better-sqlite3 answers it. */
async function statement(client: pg.PoolClient, step: Extract<Step, { op: 'get' | 'all' | 'run' }>): Promise<unknown> {
  const prepared = postgresStatement(step.query);
  const values = statementValues(prepared, step.params);
  const result = await client.query({ name: prepared.name, text: prepared.text, values, ...(prepared.pluck ? { rowMode: 'array' } : {}) });
  if (step.op === 'run') return { changes: result.rowCount ?? 0 };
  const rows = prepared.pluck ? (result.rows as unknown[][]).map((row) => row[0]) : result.rows;
  return step.op === 'get' ? rows[0] : rows;
}
