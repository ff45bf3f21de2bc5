import { parentPort, workerData } from 'node:worker_threads';
import type { HistoryQuery, HistoryRequest, HistoryWorkerData, HistoryWorkerMessage } from './history-messages';
import { HistoryStore, type EntryPage, type StoredEntry } from './history-store';
import { LogStore, type StoredLine } from '../logs/log-store';

/*
 * The request history's worker thread: every SQLite write and read of the history happens here, off the engine's
 * main thread. A failure is not recovered from: the worker dies with SQLite's message and the main thread logs it once.
 */

const port = parentPort!;
const post = (message: HistoryWorkerMessage) => port.postMessage(message);

/** A page as JSON, its entries spliced in as they are (already JSON). */
const pageJson = ({ entries, next }: EntryPage) => `{"entries":[${entries.join(',')}],"next":${JSON.stringify(next)}}`;

function answer(store: HistoryStore, logs: LogStore, query: HistoryQuery): string | null {
  switch (query.type) {
    case 'list':
      return `[${store.list(query.limit, query.before, query.filter).join(',')}]`;
    case 'page':
      return pageJson(store.page(query.limit, query.budget, query.before, query.filter));
    case 'pick':
      return pageJson(store.pick(query.ids, query.budget));
    case 'get':
      return store.get(query.id) ?? null;
    case 'flush':
      // Every earlier append has been written by the time this message is handled.
      return null;
    case 'clear':
      return String(store.clear());
    case 'logs':
      return JSON.stringify(logs.list(query.query));
  }
}

/** The maximum age moves on with time: entries also leave while no new ones arrive. */
const TRIM_EVERY_MS = 60_000;

function serve(): void {
  let store: HistoryStore;
  let logs: LogStore;
  const { logRetentionHours, ...options } = workerData as HistoryWorkerData;
  try {
    store = HistoryStore.open({ ...options, log: (line) => post({ type: 'log', line }) });
    logs = new LogStore(store.file, logRetentionHours);
  } catch (error) {
    // No message listener is attached, so the worker exits after this.
    post({ type: 'start-failed', message: (error as Error).message });
    return;
  }
  const trimming = setInterval(() => {
    store.trim();
    logs.trim();
  }, TRIM_EVERY_MS).unref();
  // One transaction per batch: each costs the file a journal cycle (their own ones nest as savepoints).
  const append = store.file.transaction((entries: StoredEntry[], lines: StoredLine[]) => {
    store.append(entries);
    logs.append(lines);
  });
  const handle = (message: HistoryRequest) => {
    switch (message.type) {
      case 'append':
        return append(message.entries, message.lines);
      case 'retain':
        return store.retain(message.retention);
      case 'retain-logs':
        return logs.retain(message.hours);
      case 'query':
        return post({ type: 'result', requestId: message.requestId, json: answer(store, logs, message.query) });
      case 'close':
        clearInterval(trimming);
        store.close();
        // With no listener left the port lets go, and the thread ends.
        port.off('message', onMessage);
    }
  };
  const onMessage = (message: HistoryRequest) => {
    try {
      handle(message);
    } catch (error) {
      // better-sqlite3's SqliteError reaches the main thread as a bare object without its text: rethrow the text.
      const { message: text, code } = error as { message: string; code?: string };
      // eslint-disable-next-line preserve-caught-error -- the cause is what would not cross the thread
      throw new Error(code ? `${text} (${code})` : text);
    }
  };
  port.on('message', onMessage);
  post({ type: 'ready' });
}

serve();
