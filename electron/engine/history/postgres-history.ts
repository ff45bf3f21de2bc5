import type pg from 'pg';
import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import { filtersAnything } from '../../../shared/workbench/history-match';
import { openPostgresPool } from '../storage/postgres/connection';
import { CHANGES_CHANNEL } from '../storage/postgres/unit-driver';
import { migratePostgres } from '../storage/postgres/migrate';
import { batchInsert, columnArrays, queryConfig } from '../storage/postgres/statements';
import { query } from '../storage/unit';
import { type EntryPage, HISTORY_CHANGES, type HistoryBackend, type HistoryRetention, type StoredEntry } from './history-backend';
import { entryJson, HISTORY_SQL, PageFiller, storedRow, trimmedBefore, type Row } from './history-rows';
import type { HistoryStoreOptions } from './history-store';
import { HISTORY_LEDGER, HISTORY_POSTGRES_MIGRATIONS } from './postgres-history-schema';
import { PostgresLogStore } from '../logs/postgres-log-store';
import { DEFAULT_LOG_RETENTION_HOURS, type LogPage, type LogQuery, type StoredLine } from '../logs/log-store';

/**
 * HistoryStore's options, with the database in place of the data folder, and the replica's name on the change channel
 * (its batches named there under it), if other replicas are to hear of them.
 */
export type PostgresHistoryOptions = Omit<HistoryStoreOptions, 'dataDir' | 'nativeBinding'> & { databaseUrl: string; origin?: string };

const insert = query(
  'history.insert',
  // A batch written again (see the migration of one row per id) adds nothing.
  `${batchInsert('request_log', [
    ['id', 'text'],
    ['entry', 'text'],
    ['body', 'bytea'],
    ['answer', 'text'],
    ['outbound', 'text'],
  ])} ON CONFLICT (id) DO NOTHING`,
);
const statement = Object.fromEntries(Object.entries(HISTORY_SQL).map(([name, sql]) => [name, query(`history.${name}`, sql)])) as {
  [name in keyof typeof HISTORY_SQL]: ReturnType<typeof query>;
};
// Every kept entry below a seq, newest first, a chunk at a time: what a filter or an export looks through.
const scan = query('history.scan', 'SELECT seq, id, entry, body, outbound FROM request_log WHERE seq < ? ORDER BY seq DESC LIMIT ?');
const scanWithAnswers = query('history.scanWithAnswers', 'SELECT seq, id, entry, body, answer, outbound FROM request_log WHERE seq < ? ORDER BY seq DESC LIMIT ?');
const SCAN_CHUNK = 100;
const named = query('history.named', 'SELECT entry, body, outbound FROM request_log WHERE id = ANY(CAST(? AS text[])) ORDER BY seq');
/** Entry ids per notice: a NOTIFY payload stays under PostgreSQL's 8000 bytes. */
const IDS_PER_NOTICE = 150;

/**
 * The key of the transaction-level advisory lock every replica's trims and clears take ("tokenbench history" in a
 * bigint): two DELETEs over the same old rows could otherwise lock them in different orders and deadlock.
 */
const TRIM_LOCK = '8389758372839124783';

/**
 * The request history and `GET /logs` lines in the PostgreSQL database every replica shares, used by the history
 * worker instead of HistoryStore when the engine runs over PostgreSQL: every replica writes its batches there and
 * reads everyone's, newest first in the order they were written. Plain `pg` queries on a pool of one connection of its
 * own: the worker makes one call at a time, and no unit of the engine's ever joins one of its transactions.
 */
export class PostgresHistory implements HistoryBackend {
  private readonly lines: PostgresLogStore;

  static async open({ databaseUrl, origin, limit, maxAgeDays = 0, logRetentionHours = DEFAULT_LOG_RETENTION_HOURS, log }: PostgresHistoryOptions): Promise<PostgresHistory> {
    const url = new URL(databaseUrl);
    url.searchParams.set('max', '1');
    const pool = openPostgresPool(url.href);
    // An idle connection the server dropped: the pool opens another at the next query.
    pool.on('error', (error) => log(`The request history's database connection dropped: ${error.message}`));
    try {
      await migratePostgres(pool, HISTORY_POSTGRES_MIGRATIONS, HISTORY_LEDGER);
      const history = new PostgresHistory(pool, { limit, maxAgeDays }, logRetentionHours, origin);
      await history.trim();
      return history;
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private constructor(
    private readonly pool: pg.Pool,
    private retention: HistoryRetention,
    logRetentionHours: number,
    private readonly origin: string | undefined,
  ) {
    this.lines = new PostgresLogStore(logRetentionHours);
  }

  /**
   * The entries and lines in one transaction, then the trims the SQLite store makes with each batch. The entries are
   * named on the change channel, sent by PostgreSQL as the transaction commits.
   */
  async append(entries: StoredEntry[], lines: StoredLine[]): Promise<void> {
    await this.transaction(async (client) => {
      if (entries.length > 0) await client.query(queryConfig(insert, columnArrays(entries.map(storedRow), 5)));
      if (this.origin !== undefined) {
        for (let at = 0; at < entries.length; at += IDS_PER_NOTICE) {
          const ids = entries.slice(at, at + IDS_PER_NOTICE).map(([id]) => id);
          await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, `${this.origin} ${HISTORY_CHANGES} ${ids.join(',')}`]);
        }
      }
      if (lines.length > 0) await this.lines.insert(client, lines);
      await this.lock(client);
      await this.trimEntries(client, Date.now());
      if (lines.length > 0) await this.lines.trimCount(client);
    });
  }

  trim(now = Date.now()): Promise<void> {
    return this.locked(async (client) => {
      await this.trimEntries(client, now);
      await this.lines.trim(client, now);
    });
  }

  retain(retention: HistoryRetention): Promise<void> {
    this.retention = retention;
    return this.locked((client) => this.trimEntries(client, Date.now()));
  }

  retainLogs(hours: number): Promise<void> {
    this.lines.retain(hours);
    return this.locked((client) => this.lines.trim(client));
  }

  /** Every replica's entries. */
  clear(): Promise<number> {
    return this.locked(async (client) => (await client.query(queryConfig(statement.clear))).rowCount ?? 0);
  }

  async list(limit: number, before?: string, filter?: HistoryFilter): Promise<string[]> {
    if (filter === undefined || !filtersAnything(filter)) {
      const read = before ? queryConfig(statement.before, [before, limit]) : queryConfig(statement.recent, [limit]);
      return (await this.pool.query<Row>(read)).rows.map(entryJson);
    }
    return (await this.page(limit, Infinity, before, filter, false)).entries;
  }

  /** As HistoryStore.page, reading a chunk of rows at a time. */
  async page(limit: number, budget: number, before?: string, filter?: HistoryFilter, answers = true): Promise<EntryPage> {
    let from = before ? (await this.pool.query<{ seq: number }>(queryConfig(statement.seqOf, [before]))).rows[0]?.seq : Number.MAX_SAFE_INTEGER;
    // An entry gone since the last page took everything older with it: retention trims oldest first.
    if (from === undefined) return { entries: [], next: null };
    const filling = new PageFiller(limit, budget, filter);
    for (;;) {
      const { rows } = await this.pool.query<Row & { seq: number; id: string }>(queryConfig(answers ? scanWithAnswers : scan, [from, SCAN_CHUNK]));
      for (const row of rows) if (filling.offer(row)) return filling.page(row.id);
      if (rows.length < SCAN_CHUNK) return filling.page(null);
      from = rows[rows.length - 1].seq;
    }
  }

  async pick(ids: readonly string[], budget: number): Promise<EntryPage> {
    const filling = new PageFiller(Infinity, budget);
    for (const [at, id] of ids.entries()) {
      const json = await this.get(id);
      if (json !== undefined && filling.add(json) && at < ids.length - 1) return filling.page(id);
    }
    return filling.page(null);
  }

  async named(ids: readonly string[]): Promise<string[]> {
    return (await this.pool.query<Row>(queryConfig(named, [ids]))).rows.map(entryJson);
  }

  async get(id: string): Promise<string | undefined> {
    const row = (await this.pool.query<Row>(queryConfig(statement.get, [id]))).rows[0];
    return row && entryJson(row);
  }

  logs(q: LogQuery): Promise<LogPage> {
    return this.lines.list(this.pool, q);
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async trimEntries(client: pg.PoolClient, now: number): Promise<void> {
    await client.query(queryConfig(statement.trim, [this.retention.limit]));
    const before = trimmedBefore(this.retention, now);
    if (before !== null) await client.query(queryConfig(statement.trimOlder, [before]));
  }

  private lock(client: pg.PoolClient): Promise<unknown> {
    return client.query('SELECT pg_advisory_xact_lock($1)', [TRIM_LOCK]);
  }

  /** A transaction that holds the trim lock throughout. */
  private locked<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.transaction(async (client) => {
      await this.lock(client);
      return work(client);
    });
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection cut while held fails its query with the cause; the event it also emits would otherwise end the thread.
    const cut = () => undefined;
    client.on('error', cut);
    // A connection that cannot even roll back is broken: the pool then drops it instead of handing it out again.
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw error;
    } finally {
      client.off('error', cut);
      client.release(broken);
    }
  }
}
