import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDatabaseFile, ensurePrivateDir, SQLITE_COMPANION_SUFFIXES } from '../storage/private-files';
import { filtersAnything, matchesHistoryFilter, type FilterableEntry, type HistoryFilter } from '../../../shared/workbench/history-filter';
import { shownBody, type StoredBodyHead } from './kept-body';

/** The history's own file in the data dir: its writes never wait for the vault's write lock, nor the vault for them. */
export const HISTORY_FILE = 'history.sqlite';
/** Kept in `PRAGMA user_version`. Raise it with a step in `migrate` when the schema changes. */
export const HISTORY_SCHEMA_VERSION = 1;

export interface HistoryStoreOptions {
  /** Folder for `history.sqlite`; null keeps the history in memory. */
  dataDir: string | null;
  /** How many entries are kept; older ones are trimmed as new ones arrive. */
  limit: number;
  /** better-sqlite3 binary for another ABI (Electron). */
  nativeBinding?: string;
  /** Diagnostic lines (never entry contents). */
  log: (line: string) => void;
}

/**
 * One serialized entry: its id (for `get` and paging), its JSON, and the request body's kept bytes when the entry
 * keeps them apart (its JSON then has `request_body: {bytes, utf8}`, see kept-body).
 */
export type StoredEntry = [id: string, json: string, body: Uint8Array | null];

export class HistorySchemaError extends Error {}

interface Row {
  entry: string;
  body: Buffer | null;
}

/** An entry as readers get it: a body kept as bytes goes back into `request_body` as text. */
function entryJson({ entry, body }: Row): string {
  if (body === null) return entry;
  const parsed = JSON.parse(entry) as { request_body: StoredBodyHead };
  parsed.request_body = shownBody(parsed.request_body, body) as never;
  return JSON.stringify(parsed);
}

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
  // Before the first table, while the file is empty: an entry (a few KB of JSON and up to 16 KiB of body) then fits
  // in a page or two instead of an overflow chain, which makes an append cheaper.
  db.pragma('page_size = 16384');
  db.transaction(() => {
    // One JSON document per request (and the body as sent, as bytes): written in batches and read whole.
    db.exec(`
      CREATE TABLE request_log (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, entry TEXT NOT NULL, body BLOB);
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
 * The request history on SQLite, used by the history worker only. A history file that is not a readable database is
 * moved aside (with its journal or WAL, which must not be replayed into a new file) and replaced by an empty one:
 * it is only history, and the engine should start. A newer schema is refused instead, since that file is fine.
 */
export class HistoryStore {
  private readonly stmt;
  private readonly appendBatch;

  static open({ dataDir, limit, nativeBinding, log }: HistoryStoreOptions): HistoryStore {
    if (dataDir === null) return new HistoryStore(openFile(':memory:', nativeBinding), limit);
    ensurePrivateDir(dataDir);
    const file = join(dataDir, HISTORY_FILE);
    try {
      ensurePrivateDatabaseFile(file);
      return new HistoryStore(openFile(file, nativeBinding), limit);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !UNREADABLE.has(code)) throw error;
      const aside = `${file}.unreadable-${Date.now()}`;
      for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
      log(`The request history ${file} could not be read (${code}): moved it to ${aside} and started an empty history`);
      ensurePrivateDatabaseFile(file);
      return new HistoryStore(openFile(file, nativeBinding), limit);
    }
  }

  private constructor(
    private readonly db: Database.Database,
    limit: number,
  ) {
    this.stmt = {
      insert: db.prepare('INSERT INTO request_log (id, entry, body) VALUES (?, ?, ?)'),
      // seq only grows and rows leave oldest first, so the newest `limit` rows are the last `limit` seqs.
      trim: db.prepare('DELETE FROM request_log WHERE seq <= (SELECT MAX(seq) FROM request_log) - ?'),
      recent: db.prepare('SELECT entry, body FROM request_log ORDER BY seq DESC LIMIT ?'),
      before: db.prepare(
        'SELECT entry, body FROM request_log WHERE seq < (SELECT seq FROM request_log WHERE id = ?) ORDER BY seq DESC LIMIT ?',
      ),
      get: db.prepare('SELECT entry, body FROM request_log WHERE id = ?'),
      // Every kept entry, newest first, from one below a seq: what a filter looks through.
      scan: db.prepare('SELECT entry, body FROM request_log WHERE seq < ? ORDER BY seq DESC'),
      seqOf: db.prepare('SELECT seq FROM request_log WHERE id = ?'),
    };
    this.appendBatch = db.transaction((entries: StoredEntry[]) => {
      for (const [id, json, body] of entries) this.stmt.insert.run(id, json, body && Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      this.stmt.trim.run(limit);
    });
  }

  /** Adds a batch and trims to the limit, in one transaction. */
  append(entries: StoredEntry[]): void {
    this.appendBatch(entries);
  }

  /**
   * Newest first, as JSON: the latest `limit` entries, or those older than `before`; with a filter, only those it
   * matches, looked for through every kept entry.
   */
  list(limit: number, before?: string, filter?: HistoryFilter): string[] {
    if (!filter || !filtersAnything(filter)) {
      return ((before ? this.stmt.before.all(before, limit) : this.stmt.recent.all(limit)) as Row[]).map(entryJson);
    }
    const from = before ? (this.stmt.seqOf.get(before) as { seq: number } | undefined)?.seq : Number.MAX_SAFE_INTEGER;
    if (from === undefined) return [];
    const found: string[] = [];
    for (const row of this.stmt.scan.iterate(from) as IterableIterator<Row>) {
      if (!matchesHistoryFilter(JSON.parse(row.entry) as FilterableEntry, filter)) continue;
      found.push(entryJson(row));
      if (found.length === limit) break;
    }
    return found;
  }

  get(id: string): string | undefined {
    const row = this.stmt.get.get(id) as Row | undefined;
    return row && entryJson(row);
  }

  close(): void {
    this.db.close();
  }
}
