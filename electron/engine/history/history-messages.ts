import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import type { HistoryStoreOptions, StoredEntry } from './history-store';

/** What the worker is started with (its log lines come back as messages). */
export type HistoryWorkerData = Omit<HistoryStoreOptions, 'log'>;

/** A read (or a barrier: `flush`) that the worker answers with a `result` carrying the same request id. */
export type HistoryQuery =
  | { type: 'list'; limit: number; before?: string; filter?: HistoryFilter }
  | { type: 'get'; id: string }
  | { type: 'flush' };

/**
 * Main thread → worker. The worker handles messages in order, so a query's result reflects every append posted
 * before it. `close` writes nothing new: the worker closes the database and exits.
 */
export type HistoryRequest =
  | { type: 'append'; entries: StoredEntry[] }
  | { type: 'query'; requestId: number; query: HistoryQuery }
  | { type: 'close' };

/** Worker → main thread. */
export type HistoryWorkerMessage =
  | { type: 'ready' }
  | { type: 'start-failed'; message: string }
  | { type: 'log'; line: string }
  /** `list`: a JSON array of entries; `get`: one entry's JSON, or null when unknown; `flush`: null. */
  | { type: 'result'; requestId: number; json: string | null };
