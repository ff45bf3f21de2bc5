import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import type { HistoryRetention, StoredEntry } from './history-backend';
import type { HistoryStoreOptions } from './history-store';
import type { LogQuery, StoredLine } from '../logs/log-store';

/**
 * What the worker is started with (its log lines come back as messages); with a database URL it keeps the history in
 * that PostgreSQL database, shared by every replica, instead of the data folder, and names each batch it writes on
 * the change channel as `origin` (this replica's name there, see HISTORY_CHANGES).
 */
export type HistoryWorkerData = Omit<HistoryStoreOptions, 'log'> & { databaseUrl?: string; origin?: string };

/** A read (or a barrier: `flush`) that the worker answers with a `result` carrying the same request id. */
export type HistoryQuery =
  | { type: 'list'; limit: number; before?: string; filter?: HistoryFilter }
  /** A list bounded by size too (see HistoryStore.page); answered as an EntryPage. */
  | { type: 'page'; limit: number; budget: number; before?: string; filter?: HistoryFilter }
  /** Entries by id, bounded by size (see HistoryStore.pick); answered as an EntryPage. */
  | { type: 'pick'; ids: string[]; budget: number }
  /** Entries by id, oldest first, without their answers (see HistoryBackend.named); answered as a list. */
  | { type: 'named'; ids: string[] }
  | { type: 'get'; id: string }
  | { type: 'flush' }
  /** Removes every entry: answered with how many there were. */
  | { type: 'clear' }
  /** A page of `GET /logs` lines: answered as a LogPage. */
  | { type: 'logs'; query: LogQuery };

/**
 * Main thread → worker. The worker handles messages in order, so a query's result reflects every append posted
 * before it. `close` writes nothing new: the worker closes the database and exits.
 */
export type HistoryRequest =
  | { type: 'append'; entries: StoredEntry[]; lines: StoredLine[] }
  /** Keeps to a new retention from now on, trimming at once. */
  | { type: 'retain'; retention: HistoryRetention }
  /** Keeps `GET /logs` lines this many hours from now on, trimming at once. */
  | { type: 'retain-logs'; hours: number }
  | { type: 'query'; requestId: number; query: HistoryQuery }
  | { type: 'close' };

/** Worker → main thread. */
export type HistoryWorkerMessage =
  | { type: 'ready' }
  | { type: 'start-failed'; message: string }
  | { type: 'log'; line: string }
  /**
   * `list`: a JSON array of entries; `page`, `pick`: an EntryPage as JSON; `get`: one entry's JSON, or null when
   * unknown; `flush`: null; `clear`: a count; `logs`: a LogPage.
   */
  | { type: 'result'; requestId: number; json: string | null }
  /** A query the database could not answer (its connection lost for longer than the worker waits): the read rejects. */
  | { type: 'failed'; requestId: number; message: string };
