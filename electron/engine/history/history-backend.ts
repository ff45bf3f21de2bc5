import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import type { LogPage, LogQuery, StoredLine } from '../logs/log-store';

/**
 * The change feed's channel of the history over PostgreSQL: each batch a replica writes is named on it, its id the
 * batch's entry ids joined by commas, so that every other replica's workbench hears of the requests it handled.
 */
export const HISTORY_CHANGES = 'history';

/** How much history is kept: entries beyond either bound leave, oldest first. */
export interface HistoryRetention {
  /** How many entries are kept. */
  limit: number;
  /** Entries older than this many days leave; 0 keeps them whatever their age. */
  maxAgeDays: number;
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

/** SQLite answers at once; PostgreSQL answers later. */
type Awaitable<T> = T | Promise<T>;

/**
 * Where the history worker keeps entries and `GET /logs` lines: the data folder's SQLite file (HistoryStore) or the
 * database every replica shares (PostgresHistory). The worker awaits each call before it handles its next message.
 */
export interface HistoryBackend {
  /** Adds a batch of entries and log lines, and trims to the retentions. */
  append(entries: StoredEntry[], lines: StoredLine[]): Awaitable<void>;
  /** Removes what the retentions no longer keep (the maximum ages move on with time). */
  trim(): Awaitable<void>;
  /** Keeps to a new retention from now on, trimming at once. */
  retain(retention: HistoryRetention): Awaitable<void>;
  /** Keeps log lines this many hours from now on, trimming at once. */
  retainLogs(hours: number): Awaitable<void>;
  /** Removes every entry, not the log lines; answers how many there were. */
  clear(): Awaitable<number>;
  list(limit: number, before?: string, filter?: HistoryFilter): Awaitable<string[]>;
  page(limit: number, budget: number, before?: string, filter?: HistoryFilter): Awaitable<EntryPage>;
  pick(ids: readonly string[], budget: number): Awaitable<EntryPage>;
  /** The kept entries of these ids, oldest first, as `list` gives them (no answer bodies); those gone are left out. */
  named(ids: readonly string[]): Awaitable<string[]>;
  get(id: string): Awaitable<string | undefined>;
  logs(query: LogQuery): Awaitable<LogPage>;
  close(): Awaitable<void>;
}
