import type Database from 'better-sqlite3';
import { idTimePrefix } from '../history/entry-id';
import type { Activity } from './entity-activity';

/**
 * The log lines `GET /logs` reads, in a table of their own in the history's file, written by the history's worker
 * with each batch of entries (so never on a request's path). Clearing History empties its own table only; the lines
 * leave by their own retention: older than its hours, or beyond the newest LOG_LINE_LIMIT.
 */

/** One line as the worker receives it: the activity, its id (time-ordered) and the time of its request. */
export type StoredLine = [id: string, createdAt: string, activity: Activity];

/** A line as the store answers it: what the log object shows but its tenant. */
export interface LogLine extends Activity {
  id: string;
  created_at: string;
}

/** The vendor's log retention quota. */
export const DEFAULT_LOG_RETENTION_HOURS = 24;
/** A longer retention is a setting's mistake more likely than a wish: 30 days. */
export const MAX_LOG_RETENTION_HOURS = 30 * 24;

/** However long the retention, no more lines than this are kept, so a sustained load cannot fill the disk. */
export const LOG_LINE_LIMIT = 200_000;

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
  /** The id of the last line of the page before: the lines older than it. */
  after?: string;
}

export interface LogPage {
  lines: LogLine[];
  /** How many lines the filter matches (offset pages only). */
  total?: number;
  /** Whether lines remain after this page (cursor pages only). */
  more?: boolean;
}

const COLUMNS = 'id, created_at, actor_id, entity_type, entity_id, operation, message';

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
    // A table the history's own schema version does not cover: older versions of Tokenbench leave it alone.
    db.exec(`
      CREATE TABLE IF NOT EXISTS logs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, created_at TEXT NOT NULL, actor_id TEXT,
        entity_type TEXT NOT NULL, entity_id TEXT NOT NULL, operation TEXT NOT NULL, message TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS logs_id ON logs(id);
      CREATE INDEX IF NOT EXISTS logs_entity ON logs(entity_id);
    `);
    this.insert = db.prepare(`INSERT INTO logs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`);
    // seq only grows and lines leave oldest first, so the newest LOG_LINE_LIMIT lines are the last seqs.
    this.trimCount = db.prepare('DELETE FROM logs WHERE seq <= (SELECT MAX(seq) FROM logs) - ?');
    this.trimOlder = db.prepare('DELETE FROM logs WHERE id < ?');
    this.appendBatch = db.transaction((lines: StoredLine[]) => {
      for (const [id, createdAt, a] of lines) this.insert.run(id, createdAt, a.actor_id, a.entity_type, a.entity_id, a.operation, a.message);
      this.trimCount.run(LOG_LINE_LIMIT);
    });
    this.trim();
  }

  append(lines: StoredLine[]): void {
    if (lines.length > 0) this.appendBatch(lines);
  }

  /** Removes the lines older than the retention. */
  trim(now = Date.now()): void {
    this.trimOlder.run(idTimePrefix(now - this.retentionHours * HOUR_MS));
  }

  /** Keeps lines this many hours from now on, trimming at once to it. */
  retain(hours: number, now = Date.now()): void {
    this.retentionHours = hours;
    this.trim(now);
  }

  /** Newest first. */
  list(query: LogQuery): LogPage {
    const where: string[] = [];
    const args: string[] = [];
    const narrow = (clause: string, value: string | undefined) => {
      if (value === undefined) return;
      where.push(clause);
      args.push(value);
    };
    narrow('entity_type = ?', query.entity_type);
    narrow('entity_id = ?', query.entity_id);
    narrow('created_at >= ?', query.start);
    narrow('created_at < ?', query.end);
    const filtered = where.join(' AND ');
    if (query.page === undefined) {
      const cursorWhere = [...where, ...(query.after === undefined ? [] : ['seq < (SELECT seq FROM logs WHERE id = ?)'])].join(' AND ');
      const cursorArgs = query.after === undefined ? args : [...args, query.after];
      // One more than a page: whether it came tells if another page follows.
      const lines = this.statements(cursorWhere).page.all(...cursorArgs, query.size + 1, 0) as LogLine[];
      return { lines: lines.slice(0, query.size), more: lines.length > query.size };
    }
    const { page, count } = this.statements(filtered);
    const lines = page.all(...args, query.size, (query.page - 1) * query.size) as LogLine[];
    return { lines, total: (count.get(...args) as { n: number }).n };
  }

  /** Statements per filter shape, made once: there are at most a few dozen shapes. */
  private statements(where: string) {
    let made = this.reads.get(where);
    if (!made) {
      const clause = where ? `WHERE ${where}` : '';
      made = {
        page: this.db.prepare(`SELECT ${COLUMNS} FROM logs ${clause} ORDER BY seq DESC LIMIT ? OFFSET ?`),
        count: this.db.prepare(`SELECT COUNT(*) AS n FROM logs ${clause}`),
      };
      this.reads.set(where, made);
    }
    return made;
  }
}
