import { parentPort, workerData } from 'node:worker_threads';
import type { EntryPage, HistoryBackend } from './history-backend';
import type { HistoryQuery, HistoryRequest, HistoryWorkerData, HistoryWorkerMessage } from './history-messages';
import { HistoryStore } from './history-store';
import { PostgresHistory } from './postgres-history';

/*
 * The request history's worker thread: every write and read of the history happens here, off the engine's main
 * thread, in its SQLite file or, over PostgreSQL, in the database every replica shares. A failure is not recovered
 * from: the worker dies with the database's message and the main thread logs it once.
 */

const port = parentPort!;
const post = (message: HistoryWorkerMessage) => port.postMessage(message);

/** A page as JSON, its entries spliced in as they are (already JSON). */
const pageJson = ({ entries, next }: EntryPage) => `{"entries":[${entries.join(',')}],"next":${JSON.stringify(next)}}`;

async function answer(history: HistoryBackend, query: HistoryQuery): Promise<string | null> {
  switch (query.type) {
    case 'list':
      return `[${(await history.list(query.limit, query.before, query.filter)).join(',')}]`;
    case 'page':
      return pageJson(await history.page(query.limit, query.budget, query.before, query.filter));
    case 'pick':
      return pageJson(await history.pick(query.ids, query.budget));
    case 'get':
      return (await history.get(query.id)) ?? null;
    case 'flush':
      // Every earlier append has been written by the time this message is handled.
      return null;
    case 'clear':
      return String(await history.clear());
    case 'logs':
      return JSON.stringify(await history.logs(query.query));
  }
}

/** The maximum age moves on with time: entries also leave while no new ones arrive. */
const TRIM_EVERY_MS = 60_000;

function open({ databaseUrl, ...options }: HistoryWorkerData): Promise<HistoryBackend> | HistoryBackend {
  const log = (line: string) => post({ type: 'log', line });
  return databaseUrl === undefined ? HistoryStore.open({ ...options, log }) : PostgresHistory.open({ ...options, databaseUrl, log });
}

async function serve(): Promise<void> {
  let history: HistoryBackend;
  try {
    history = await open(workerData as HistoryWorkerData);
  } catch (error) {
    // No message listener is attached, so the worker exits after this.
    post({ type: 'start-failed', message: (error as Error).message });
    return;
  }
  const handle = async (message: HistoryRequest): Promise<void> => {
    switch (message.type) {
      case 'append':
        return history.append(message.entries, message.lines);
      case 'retain':
        return history.retain(message.retention);
      case 'retain-logs':
        return history.retainLogs(message.hours);
      case 'query':
        return post({ type: 'result', requestId: message.requestId, json: await answer(history, message.query) });
      case 'close':
        clearInterval(trimming);
        await history.close();
        // With no listener left the port lets go, and the thread ends.
        port.off('message', onMessage);
    }
  };
  // Strictly in order, each once the one before it is done: a query sees every append, retain and clear posted before it.
  let turn = Promise.resolve();
  const inTurn = (work: () => Promise<void> | void) => {
    turn = turn.then(work).catch((error: unknown) => {
      // better-sqlite3's SqliteError reaches the main thread as a bare object without its text: rethrow the text. The
      // rejection is left unhandled, which ends the worker with it.
      const { message: text, code } = error as { message: string; code?: string };
      throw new Error(code ? `${text} (${code})` : text);
    });
  };
  const trimming = setInterval(() => inTurn(() => history.trim()), TRIM_EVERY_MS).unref();
  const onMessage = (message: HistoryRequest) => inTurn(() => handle(message));
  port.on('message', onMessage);
  post({ type: 'ready' });
}

void serve();
