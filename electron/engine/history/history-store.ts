import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDatabaseFile, ensurePrivateDir, SQLITE_COMPANION_SUFFIXES } from '../storage/private-files';
import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import { filtersAnything } from '../../../shared/workbench/history-match';
import type { EntryPage, HistoryBackend, HistoryRetention, StoredEntry } from './history-backend';
import { entryJson, HISTORY_SQL, PageFiller, storedRow, trimmedBefore, type Row } from './history-rows';
import { DEFAULT_LOG_RETENTION_HOURS, LogStore, type LogPage, type LogQuery, type StoredLine } from '../logs/log-store';

export type { EntryPage, HistoryRetention, StoredEntry } from './history-backend';

/** The history's own file in the data dir: its writes never wait for the vault's write lock, nor the vault for them. */
export const HISTORY_FILE = 'history.sqlite';
/** Kept in `PRAGMA user_version`. Raise it with a step in `migrate` when the schema changes. */
export const HISTORY_SCHEMA_VERSION = 3;

export interface HistoryStoreOptions {
  /** Folder for `history.sqlite`; null keeps the history in memory. */
  dataDir: string | null;
  limit: number;
  /** 0, or left out: entries are kept whatever their age. */
  maxAgeDays?: number;
  /** How many hours the `GET /logs` lines kept beside the entries stay; DEFAULT_LOG_RETENTION_HOURS if left out. */
  logRetentionHours?: number;
  /** better-sqlite3 binary for another ABI (Electron). */
  nativeBinding?: string;
  /** Diagnostic lines (never entry contents). */
  log: (line: string) => void;
}

export class HistorySchemaError extends Error {}

/** Errors that mean the file is not a readable SQLite database (as opposed to busy, missing rights, a newer schema). */
const UNREADABLE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

function migrate(db: Database.Database, file: string): void {
  // Reading the version is the first read of the file: a file that is not a database fails here.
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > HISTORY_SCHEMA_VERSION) {
    throw new HistorySchemaError(
      `${file} holds request history schema version ${version}, newer than this Tokenbench reads (${HISTORY_SCHEMA_VERSION}): ` +
        'run the newer Tokenbench, or delete the file to start an empty history',
    );
  }
  if (version === HISTORY_SCHEMA_VERSION) return;
  if (version > 0) {
    db.transaction(() => {
      // Version 2 keeps the destination's answer body apart from the entry, as it keeps the request body.
      if (version < 2) db.exec('ALTER TABLE request_log ADD COLUMN answer TEXT');
      // Version 3 keeps a proxy's outbound body apart too: the worker then stores an entry without parsing it again.
      db.exec('ALTER TABLE request_log ADD COLUMN outbound TEXT');
      db.pragma(`user_version = ${HISTORY_SCHEMA_VERSION}`);
    })();
    return;
  }
  // Before the first table, while the file is empty: an entry (a few KB of JSON and up to 16 KiB of body) then fits
  // in a page or two instead of an overflow chain, which makes an append cheaper.
  db.pragma('page_size = 16384');
  db.transaction(() => {
    // One JSON document per request (the body as sent, as bytes, and what the proxy sent and got back, masked, apart):
    // written in batches.
    db.exec(`
      CREATE TABLE request_log (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, entry TEXT NOT NULL, body BLOB, answer TEXT, outbound TEXT);
      CREATE INDEX request_log_id ON request_log(id);
    `);
    db.pragma(`user_version = ${HISTORY_SCHEMA_VERSION}`);
  })();
}

function openFile(file: string, nativeBinding: string | undefined): Database.Database {
  const db = new Database(file, nativeBinding ? { nativeBinding } : {});
  try {
    migrate(db, file);
    // A rollback journal kept between batches (PERSIST), not WAL: a WAL writes each page twice, and its readers
    // alongside the writer buy nothing here, where the worker is the only connection. History is not acknowledged
    // data, so it never waits for the disk: a crash mid-batch leaves a journal the next open rolls back, and a power
    // cut at worst a file the next start moves aside (see open). An existing WAL-mode file switches over on open.
    db.pragma('journal_mode = PERSIST');
    db.pragma('synchronous = OFF');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The request history on SQLite, with the `GET /logs` lines beside it (logs/log-store), used by the history worker
 * only. A history file that is not a readable database is moved aside (with its journal or WAL, which must not be
 * replayed into a new file) and replaced by an empty one: it is only history, and the engine should start. A newer
 * schema is refused instead, since that file is fine.
 */
export class HistoryStore implements HistoryBackend {
  private readonly stmt;
  private readonly appendBatch;
  private readonly lines: LogStore;

  static open({ dataDir, limit, maxAgeDays = 0, logRetentionHours = DEFAULT_LOG_RETENTION_HOURS, nativeBinding, log }: HistoryStoreOptions): HistoryStore {
    const retention = { limit, maxAgeDays };
    if (dataDir === null) return new HistoryStore(openFile(':memory:', nativeBinding), retention, logRetentionHours);
    ensurePrivateDir(dataDir);
    const file = join(dataDir, HISTORY_FILE);
    try {
      ensurePrivateDatabaseFile(file);
      return new HistoryStore(openFile(file, nativeBinding), retention, logRetentionHours);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !UNREADABLE.has(code)) throw error;
      const aside = `${file}.unreadable-${Date.now()}`;
      for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
      log(`The request history ${file} could not be read (${code}): moved it to ${aside} and started an empty history`);
      ensurePrivateDatabaseFile(file);
      return new HistoryStore(openFile(file, nativeBinding), retention, logRetentionHours);
    }
  }

  private constructor(
    private readonly db: Database.Database,
    private retention: HistoryRetention,
    logRetentionHours: number,
  ) {
    this.stmt = {
      insert: db.prepare('INSERT INTO request_log (id, entry, body, answer, outbound) VALUES (?, ?, ?, ?, ?)'),
      trim: db.prepare(HISTORY_SQL.trim),
      trimOlder: db.prepare(HISTORY_SQL.trimOlder),
      clear: db.prepare(HISTORY_SQL.clear),
      recent: db.prepare(HISTORY_SQL.recent),
      before: db.prepare(HISTORY_SQL.before),
      get: db.prepare(HISTORY_SQL.get),
      named: db.prepare('SELECT entry, body, outbound FROM request_log WHERE id IN (SELECT value FROM json_each(?)) ORDER BY seq'),
      // Every kept entry, newest first, from one below a seq: what a filter looks through; an export, with answers.
      scan: db.prepare('SELECT id, entry, body, outbound FROM request_log WHERE seq < ? ORDER BY seq DESC'),
      scanWithAnswers: db.prepare('SELECT id, entry, body, answer, outbound FROM request_log WHERE seq < ? ORDER BY seq DESC'),
      seqOf: db.prepare(HISTORY_SQL.seqOf),
    };
    this.lines = new LogStore(db, logRetentionHours);
    // One transaction per batch, the log lines' with it: each costs the file a journal cycle.
    this.appendBatch = db.transaction((entries: StoredEntry[], lines: StoredLine[]) => {
      for (const entry of entries) this.stmt.insert.run(...storedRow(entry));
      this.trimEntries(Date.now());
      this.lines.append(lines);
    });
    this.trimEntries(Date.now());
  }

  /** Adds a batch of entries, and of `GET /logs` lines, and trims to the retention, in one transaction. */
  append(entries: StoredEntry[], lines: StoredLine[] = []): void {
    this.appendBatch(entries, lines);
  }

  /** Removes what the retentions no longer keep: entries past the newest `limit` or older than the maximum age, and old log lines. */
  trim(now = Date.now()): void {
    this.trimEntries(now);
    this.lines.trim(now);
  }

  private trimEntries(now: number): void {
    this.stmt.trim.run(this.retention.limit);
    const before = trimmedBefore(this.retention, now);
    if (before !== null) this.stmt.trimOlder.run(before);
  }

  /** Keeps to a new retention from now on, trimming at once to it. */
  retain(retention: HistoryRetention, now = Date.now()): void {
    this.retention = retention;
    this.trimEntries(now);
  }

  /** Keeps `GET /logs` lines this many hours from now on, trimming at once to it. */
  retainLogs(hours: number): void {
    this.lines.retain(hours);
  }

  /** A page of `GET /logs` lines, newest first. */
  logs(query: LogQuery): LogPage {
    return this.lines.list(query);
  }

  /** Removes every entry; answers how many there were. */
  clear(): number {
    return this.stmt.clear.run().changes;
  }

  /**
   * Newest first, as JSON: the latest `limit` entries, or those older than `before`; with a filter, only those it
   * matches, looked for through every kept entry. Without their answer bodies, which `get` reads one at a time.
   */
  list(limit: number, before?: string, filter?: HistoryFilter): string[] {
    if (!filter || !filtersAnything(filter)) {
      return ((before ? this.stmt.before.all(before, limit) : this.stmt.recent.all(limit)) as Row[]).map(entryJson);
    }
    return this.page(limit, Infinity, before, filter, false).entries;
  }

  /**
   * What `list` gives, also bounded by size, with the answer bodies unless `answers` is false: the page ends once its
   * JSON reaches `budget` characters (past its first entry), so one page never costs the reader more than about that
   * much to parse and send on.
   */
  page(limit: number, budget: number, before?: string, filter?: HistoryFilter, answers = true): EntryPage {
    const from = before ? (this.stmt.seqOf.get(before) as { seq: number } | undefined)?.seq : Number.MAX_SAFE_INTEGER;
    // An entry gone since the last page took everything older with it: retention trims oldest first.
    if (from === undefined) return { entries: [], next: null };
    const filling = new PageFiller(limit, budget, filter);
    const scan = answers ? this.stmt.scanWithAnswers : this.stmt.scan;
    for (const row of scan.iterate(from) as IterableIterator<Row & { id: string }>) if (filling.offer(row)) return filling.page(row.id);
    return filling.page(null);
  }

  /** The kept entries of these ids, answers and all, in their order, as far as `budget` characters of JSON go (one id at least). */
  pick(ids: readonly string[], budget: number): EntryPage {
    const filling = new PageFiller(Infinity, budget);
    for (const [at, id] of ids.entries()) {
      const json = this.get(id);
      if (json !== undefined && filling.add(json) && at < ids.length - 1) return filling.page(id);
    }
    return filling.page(null);
  }

  named(ids: readonly string[]): string[] {
    return (this.stmt.named.all(JSON.stringify(ids)) as Row[]).map(entryJson);
  }

  get(id: string): string | undefined {
    const row = this.stmt.get.get(id) as Row | undefined;
    return row && entryJson(row);
  }

  close(): void {
    this.db.close();
  }
}
