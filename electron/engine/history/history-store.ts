import Database from 'better-sqlite3';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDatabaseFile, ensurePrivateDir, SQLITE_COMPANION_SUFFIXES } from '../storage/private-files';
import { filtersAnything, matchesHistoryFilter, type FilterableEntry, type HistoryFilter } from '../../../shared/workbench/history-filter';
import { idTimePrefix } from './entry-id';
import { cardNumbersMasked, outboundShown, shownBody, type StoredBodyHead, withOutboundBody } from './kept-body';

/** The history's own file in the data dir: its writes never wait for the vault's write lock, nor the vault for them. */
export const HISTORY_FILE = 'history.sqlite';
/** Kept in `PRAGMA user_version`. Raise it with a step in `migrate` when the schema changes. */
export const HISTORY_SCHEMA_VERSION = 3;

/** How much history is kept: entries beyond either bound leave, oldest first. */
export interface HistoryRetention {
  /** How many entries are kept. */
  limit: number;
  /** Entries older than this many days leave; 0 keeps them whatever their age. */
  maxAgeDays: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export interface HistoryStoreOptions {
  /** Folder for `history.sqlite`; null keeps the history in memory. */
  dataDir: string | null;
  limit: number;
  /** 0, or left out: entries are kept whatever their age. */
  maxAgeDays?: number;
  /** better-sqlite3 binary for another ABI (Electron). */
  nativeBinding?: string;
  /** Diagnostic lines (never entry contents). */
  log: (line: string) => void;
}

/**
 * One serialized entry: its id (for `get` and paging), its JSON, the request body's kept bytes when the entry keeps
 * them apart (its JSON then has `request_body: {bytes, utf8}`, see kept-body), and the destination's answer body,
 * masked, when history kept it (read with the one entry, never with a list: it may be large); and the proxy's
 * outbound body with its card numbers still to mask, masked here (outboundShown) and kept in its own column.
 */
export type StoredEntry = [id: string, json: string, body: Uint8Array | null, answer?: string | null, outbound?: string | null];

/** Entries as JSON, newest first, and the id the next page starts before: null once none is left to look at. */
export interface EntryPage {
  entries: string[];
  next: string | null;
}

export class HistorySchemaError extends Error {}

interface Row {
  entry: string;
  body: Buffer | null;
  /** Read only where the answer goes with the entry. */
  answer?: string | null;
  /** A proxy's outbound body, masked: null where the entry has none or (written before version 3) holds it itself. */
  outbound: string | null;
}

/** Where a proxy entry keeps what it says of the answer body (see proxy-history), and its outbound body. */
interface ProxyHead {
  details?: { response?: { body?: { text?: string } }; outbound?: { detokenized_body?: string | null } };
}

/**
 * An entry as readers get it: a body kept as bytes goes back into `request_body` as text, an outbound body into its
 * `detokenized_body`, and an answer read with it into its answer's `text`.
 */
function entryJson({ entry, body, answer, outbound }: Row): string {
  if (body === null && outbound === null && (answer === undefined || answer === null)) return entry;
  const parsed = JSON.parse(entry) as { request_body: StoredBodyHead } & ProxyHead;
  if (body !== null) parsed.request_body = shownBody(parsed.request_body, body) as never;
  if (outbound !== null) withOutboundBody(parsed, outbound);
  const kept = parsed.details?.response?.body;
  if (typeof answer === 'string' && kept) kept.text = answer;
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
 * The request history on SQLite, used by the history worker only. A history file that is not a readable database is
 * moved aside (with its journal or WAL, which must not be replayed into a new file) and replaced by an empty one:
 * it is only history, and the engine should start. A newer schema is refused instead, since that file is fine.
 */
export class HistoryStore {
  private readonly stmt;
  private readonly appendBatch;

  static open({ dataDir, limit, maxAgeDays = 0, nativeBinding, log }: HistoryStoreOptions): HistoryStore {
    const retention = { limit, maxAgeDays };
    if (dataDir === null) return new HistoryStore(openFile(':memory:', nativeBinding), retention);
    ensurePrivateDir(dataDir);
    const file = join(dataDir, HISTORY_FILE);
    try {
      ensurePrivateDatabaseFile(file);
      return new HistoryStore(openFile(file, nativeBinding), retention);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !UNREADABLE.has(code)) throw error;
      const aside = `${file}.unreadable-${Date.now()}`;
      for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
      log(`The request history ${file} could not be read (${code}): moved it to ${aside} and started an empty history`);
      ensurePrivateDatabaseFile(file);
      return new HistoryStore(openFile(file, nativeBinding), retention);
    }
  }

  private constructor(
    private readonly db: Database.Database,
    private retention: HistoryRetention,
  ) {
    this.stmt = {
      insert: db.prepare('INSERT INTO request_log (id, entry, body, answer, outbound) VALUES (?, ?, ?, ?, ?)'),
      // seq only grows and rows leave oldest first, so the newest `limit` rows are the last `limit` seqs.
      trim: db.prepare('DELETE FROM request_log WHERE seq <= (SELECT MAX(seq) FROM request_log) - ?'),
      // Ids start with the time they were made (UUIDv7): those below a time's prefix are older, found by the index.
      trimOlder: db.prepare('DELETE FROM request_log WHERE id < ?'),
      clear: db.prepare('DELETE FROM request_log'),
      recent: db.prepare('SELECT entry, body, outbound FROM request_log ORDER BY seq DESC LIMIT ?'),
      before: db.prepare(
        'SELECT entry, body, outbound FROM request_log WHERE seq < (SELECT seq FROM request_log WHERE id = ?) ORDER BY seq DESC LIMIT ?',
      ),
      get: db.prepare('SELECT entry, body, answer, outbound FROM request_log WHERE id = ?'),
      // Every kept entry, newest first, from one below a seq: what a filter looks through; an export, with answers.
      scan: db.prepare('SELECT id, entry, body, outbound FROM request_log WHERE seq < ? ORDER BY seq DESC'),
      scanWithAnswers: db.prepare('SELECT id, entry, body, answer, outbound FROM request_log WHERE seq < ? ORDER BY seq DESC'),
      seqOf: db.prepare('SELECT seq FROM request_log WHERE id = ?'),
    };
    this.appendBatch = db.transaction((entries: StoredEntry[]) => {
      for (const [id, json, kept, answer, outbound] of entries) {
        const body = kept && cardNumbersMasked(kept);
        const sent = typeof outbound === 'string' ? outboundShown(outbound) : null;
        this.stmt.insert.run(id, json, body && Buffer.from(body.buffer, body.byteOffset, body.byteLength), answer ?? null, sent);
      }
      this.trim();
    });
    this.trim();
  }

  /** Adds a batch and trims to the retention, in one transaction. */
  append(entries: StoredEntry[]): void {
    this.appendBatch(entries);
  }

  /** Removes what the retention no longer keeps: past the newest `limit`, and older than the maximum age. */
  trim(now = Date.now()): void {
    const { limit, maxAgeDays } = this.retention;
    this.stmt.trim.run(limit);
    if (maxAgeDays > 0) this.stmt.trimOlder.run(idTimePrefix(now - maxAgeDays * DAY_MS));
  }

  /** Keeps to a new retention from now on, trimming at once to it. */
  retain(retention: HistoryRetention, now = Date.now()): void {
    this.retention = retention;
    this.trim(now);
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
    const narrows = filter !== undefined && filtersAnything(filter);
    const entries: string[] = [];
    let size = 0;
    const scan = answers ? this.stmt.scanWithAnswers : this.stmt.scan;
    for (const row of scan.iterate(from) as IterableIterator<Row & { id: string }>) {
      if (narrows && !matchesHistoryFilter(JSON.parse(row.entry) as FilterableEntry, filter)) continue;
      const json = entryJson(row);
      entries.push(json);
      size += json.length;
      if (entries.length === limit || size >= budget) return { entries, next: row.id };
    }
    return { entries, next: null };
  }

  /** The kept entries of these ids, answers and all, in their order, as far as `budget` characters of JSON go (one id at least). */
  pick(ids: readonly string[], budget: number): EntryPage {
    const entries: string[] = [];
    let size = 0;
    for (const [at, id] of ids.entries()) {
      const json = this.get(id);
      if (json !== undefined) {
        entries.push(json);
        size += json.length;
      }
      if (size >= budget && at < ids.length - 1) return { entries, next: id };
    }
    return { entries, next: null };
  }

  get(id: string): string | undefined {
    const row = this.stmt.get.get(id) as Row | undefined;
    return row && entryJson(row);
  }

  /** The open file: the log lines are kept beside the entries (logs/log-store). */
  get file(): Database.Database {
    return this.db;
  }

  close(): void {
    this.db.close();
  }
}
