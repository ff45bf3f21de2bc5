import type pg from 'pg';
import { batchInsert, columnArrays, queryConfig } from '../storage/postgres/statements';
import { query, type Query } from '../storage/unit';
import { LOG_LINE_LIMIT, LOG_SQL, lineValues, linesTrimmedBefore, logPage, logRead, type LogLine, type LogPage, type LogQuery, type StoredLine } from './log-store';

/** A pool, or one of its clients inside a transaction. */
type Queryable = Pick<pg.ClientBase, 'query'>;

const COLUMNS = ['id', 'created_at', 'actor_id', 'actor_type', 'entity_type', 'entity_id', 'operation', 'message'].map((name) => [name, 'text'] as const);
// A batch written again (see the history's migration of one row per id) adds nothing.
const insert = query('logs.insert', `${batchInsert('logs', COLUMNS)} ON CONFLICT (id) DO NOTHING`);
const keptCount = query('logs.trimCount', LOG_SQL.trimCount);
const trimOlder = query('logs.trimOlder', LOG_SQL.trimOlder);

/**
 * The `GET /logs` lines in the database every replica shares (postgres-history-schema), as LogStore keeps them in
 * SQLite: the same statements and retention, run by PostgresHistory inside its transactions.
 */
export class PostgresLogStore {
  private readonly reads = new Map<string, { page: Query; count: Query }>();

  constructor(private retentionHours: number) {}

  /**
   * The rows of each batch, its lines' ids made at its first try: the worker's retry of a batch whose commit went
   * through unanswered passes the same array, and writes the same ids, which the insert then skips.
   */
  private readonly rows = new WeakMap<StoredLine[], (readonly unknown[])[]>();

  async insert(db: Queryable, lines: StoredLine[]): Promise<void> {
    let rows = this.rows.get(lines);
    if (!rows) this.rows.set(lines, (rows = lines.map(lineValues)));
    await db.query(queryConfig(insert, columnArrays(rows, COLUMNS.length)));
  }

  /** Keeps the newest LOG_LINE_LIMIT lines. */
  async trimCount(db: Queryable): Promise<void> {
    await db.query(queryConfig(keptCount, [LOG_LINE_LIMIT]));
  }

  /** Removes the lines older than the retention. */
  async trim(db: Queryable, now = Date.now()): Promise<void> {
    await db.query(queryConfig(trimOlder, [linesTrimmedBefore(this.retentionHours, now)]));
  }

  /** Keeps lines this many hours from now on; the caller trims. */
  retain(hours: number): void {
    this.retentionHours = hours;
  }

  /** Newest first. */
  async list(db: Queryable, q: LogQuery): Promise<LogPage> {
    const { where, args, limit, offset, counted } = logRead(q);
    const { page, count } = this.statements(where);
    const { rows } = await db.query<LogLine>(queryConfig(page, [...args, limit, offset]));
    const total = counted ? (await db.query<{ n: number }>(queryConfig(count, args))).rows[0].n : undefined;
    return logPage(q, rows, total);
  }

  /** Statements per filter shape, made once: there are at most a few dozen shapes. */
  private statements(where: string) {
    let made = this.reads.get(where);
    if (!made) {
      made = { page: query(`logs.page ${where}`, LOG_SQL.page(where)), count: query(`logs.count ${where}`, LOG_SQL.count(where)) };
      this.reads.set(where, made);
    }
    return made;
  }
}
