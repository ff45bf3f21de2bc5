import type Database from 'better-sqlite3';
import { timeOrderedId } from '../history/entry-id';
import type { Activity } from './entity-activity';

/**
 * The log lines `GET /logs` reads, in a table of their own in the history's file, written by the history's worker
 * with each batch of entries (so never on a request's path). Clearing History empties its own table only; the lines
 * leave by their own retention: older than its hours, or beyond the newest LOG_LINE_LIMIT.
 */

/**
 * One line as the worker receives it: the time of its request and the activity's columns, in LOG_SQL.insert's order
 * after the id, which the worker gives it. A tuple of strings, not an object: a batch of them is cloned to the worker
 * at about half the cost.
 */
export type StoredLine = [
  createdAt: string,
  actorId: Activity['actor_id'],
  actorType: NonNullable<Activity['actor_type']> | null,
  entityType: Activity['entity_type'],
  entityId: string,
  operation: Activity['operation'],
  message: string,
];

/** The line of an activity of a request made at `createdAt`. */
export const storedLine = (createdAt: string, a: Activity): StoredLine => [createdAt, a.actor_id, a.actor_type ?? null, a.entity_type, a.entity_id, a.operation, a.message];

/** A line as the store answers it: what the log object shows but its tenant, and its place for the next page's cursor. */
export interface LogLine extends Activity {
  seq: number;
  id: string;
  created_at: string;
}

/** The vendor's log retention quota. */
export const DEFAULT_LOG_RETENTION_HOURS = 24;
/** A longer retention is a setting's mistake more likely than a wish: 30 days. */
export const MAX_LOG_RETENTION_HOURS = 30 * 24;

/** However long the retention, no more lines than this are kept, so a sustained load cannot fill the disk. */
export const LOG_LINE_LIMIT = 100_000;

const HOUR_MS = 60 * 60 * 1000;

/** Which lines to read: each field narrows; `page` pages by offset, `after` (a line id) by cursor. */
export interface LogQuery {
  entity_type?: string;
  entity_id?: string;
  /** ISO 8601 instants (UTC, as toISOString writes them): created_at ≥ start, < end. */
  start?: string;
  end?: string;
  size: number;
  page?: number;
  /** The place (seq) of the last line of the page before: the lines older than it. */
  after?: number;
}

export interface LogPage {
  lines: LogLine[];
  /** How many lines the filter matches (offset pages only). */
  total?: number;
  /** Whether lines remain after this page (cursor pages only). */
  more?: boolean;
}

const COLUMNS = 'id, created_at, actor_id, actor_type, entity_type, entity_id, operation, message';

/** The log's statements that read the same in SQLite and PostgreSQL (whose driver numbers the `?`s). */
export const LOG_SQL = {
  insert: `INSERT INTO logs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  // seq only grows and lines leave oldest first, so the newest LOG_LINE_LIMIT lines are the last seqs.
  trimCount: 'DELETE FROM logs WHERE seq <= (SELECT MAX(seq) FROM logs) - ?',
  trimOlder: 'DELETE FROM logs WHERE seq <= (SELECT MAX(seq) FROM logs WHERE created_at < ?)',
  /** A page of lines and the count of a filter's lines, for the WHERE clause of logRead (empty: every line). */
  page: (where: string) => `SELECT seq, ${COLUMNS} FROM logs ${where && `WHERE ${where}`} ORDER BY seq DESC LIMIT ? OFFSET ?`,
  count: (where: string) => `SELECT COUNT(*) AS n FROM logs ${where && `WHERE ${where}`}`,
};

/** A line's column values in LOG_SQL.insert's order, with its new id. */
export const lineValues = (line: StoredLine) => [timeOrderedId(), ...line] as const;

/** The instant before which a retention of `hours` trims lines. */
export const linesTrimmedBefore = (hours: number, now: number): string => new Date(now - hours * HOUR_MS).toISOString();

/**
 * How a query reads: the WHERE clause (its shape alone, so statements can be made once per shape) and its values, the
 * LIMIT and OFFSET that follow them, and whether the filter's lines are counted.
 */
export interface LogRead {
  where: string;
  args: (string | number)[];
  limit: number;
  offset: number;
  counted: boolean;
}

export function logRead(query: LogQuery): LogRead {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const narrow = (clause: string, value: string | number | undefined) => {
    if (value === undefined) return;
    where.push(clause);
    args.push(value);
  };
  narrow('entity_type = ?', query.entity_type);
  narrow('entity_id = ?', query.entity_id);
  narrow('created_at >= ?', query.start);
  narrow('created_at < ?', query.end);
  if (query.page !== undefined) return { where: where.join(' AND '), args, limit: query.size, offset: (query.page - 1) * query.size, counted: true };
  narrow('seq < ?', query.after);
  // One more than a page: whether it came tells if another page follows.
  return { where: where.join(' AND '), args, limit: query.size + 1, offset: 0, counted: false };
}

/** The page a query answers, from the lines its read gave and, for offset pages, the count. */
export function logPage(query: LogQuery, lines: LogLine[], total: number | undefined): LogPage {
  if (query.page !== undefined) return { lines, total };
  return { lines: lines.slice(0, query.size), more: lines.length > query.size };
}

export class LogStore {
  private readonly insert;
  private readonly trimCount;
  private readonly trimOlder;
  private readonly appendBatch;
  private readonly reads = new Map<string, { page: Database.Statement; count: Database.Statement }>();

  constructor(
    private readonly db: Database.Database,
    private retentionHours: number,
  ) {
    // A table the history's own schema version does not cover: older versions of Tokenbench leave it alone. No index
    // but seq, which orders the lines: every write costs a core the engine shares, and a read scans a bounded table.
    db.exec(`
      CREATE TABLE IF NOT EXISTS logs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, created_at TEXT NOT NULL, actor_id TEXT,
        entity_type TEXT NOT NULL, entity_id TEXT NOT NULL, operation TEXT NOT NULL, message TEXT NOT NULL);
    `);
    // Added with workbench people; a table made before has no such column (null there: an application).
    if (!(db.prepare('PRAGMA table_info(logs)').all() as { name: string }[]).some((column) => column.name === 'actor_type')) {
      db.exec('ALTER TABLE logs ADD COLUMN actor_type TEXT');
    }
    this.insert = db.prepare(LOG_SQL.insert);
    this.trimCount = db.prepare(LOG_SQL.trimCount);
    this.trimOlder = db.prepare(LOG_SQL.trimOlder);
    this.appendBatch = db.transaction((lines: StoredLine[]) => {
      for (const line of lines) this.insert.run(...lineValues(line));
      this.trimCount.run(LOG_LINE_LIMIT);
    });
    this.trim();
  }

  append(lines: StoredLine[]): void {
    if (lines.length > 0) this.appendBatch(lines);
  }

  /** Removes the lines older than the retention. */
  trim(now = Date.now()): void {
    this.trimOlder.run(linesTrimmedBefore(this.retentionHours, now));
  }

  /** Keeps lines this many hours from now on, trimming at once to it. */
  retain(hours: number, now = Date.now()): void {
    this.retentionHours = hours;
    this.trim(now);
  }

  /** Newest first. */
  list(query: LogQuery): LogPage {
    const { where, args, limit, offset, counted } = logRead(query);
    const { page, count } = this.statements(where);
    const lines = page.all(...args, limit, offset) as LogLine[];
    return logPage(query, lines, counted ? (count.get(...args) as { n: number }).n : undefined);
  }

  /** Statements per filter shape, made once: there are at most a few dozen shapes. */
  private statements(where: string) {
    let made = this.reads.get(where);
    if (!made) {
      made = { page: this.db.prepare(LOG_SQL.page(where)), count: this.db.prepare(LOG_SQL.count(where)) };
      this.reads.set(where, made);
    }
    return made;
  }
}
