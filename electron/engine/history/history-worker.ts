import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { connectionLost } from '../storage/postgres/connection';
import type { EntryPage, HistoryBackend } from './history-backend';
import type { HistoryQuery, HistoryRequest, HistoryWorkerData, HistoryWorkerMessage } from './history-messages';
import { HistoryStore } from './history-store';
import { PostgresHistory } from './postgres-history';

/*
 * The request history's worker thread: every write and read of the history happens here, off the engine's main
 * thread, in its SQLite file or, over PostgreSQL, in the database every replica shares. A lost connection to that
 * database is waited out (see reconnecting), and what still fails after that is said and left; any other failure is
 * not recovered from: the worker dies with the database's message and the main thread logs it once.
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
    case 'named':
      return `[${(await history.named(query.ids)).join(',')}]`;
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

/** How long a piece of work waits for the database to come back before it is given up (and said so). */
const RECONNECT_FOR_MS = 60_000;
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

/**
 * Runs `work` again, on a new connection (the pool opens one for the next query), while it fails for a lost
 * connection, waiting longer each time, up to RECONNECT_FOR_MS; said once in the engine log. A batch whose transaction
 * was cut is rolled back by the database, so running it again writes it once, unless the cut came during its COMMIT.
 */
async function reconnecting<T>(work: () => Promise<T> | T): Promise<T> {
  let waited = 0;
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, LAST_RETRY_MS)) {
    try {
      return await work();
    } catch (error) {
      if (!connectionLost(error) || waited >= RECONNECT_FOR_MS) throw error;
      if (waited === 0) post({ type: 'log', line: `The request history lost its database connection (${(error as Error).message}): reconnecting` });
      await sleep(delay);
      waited += delay;
    }
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
        try {
          return await reconnecting(() => history.append(message.entries, message.lines));
        } catch (error) {
          if (!connectionLost(error)) throw error;
          // Given up on: said with its count, and the worker goes on with the next batch.
          const what = `${message.entries.length} history entries and ${message.lines.length} log lines`;
          return post({ type: 'log', line: `The request history lost ${what}: the database stayed unreachable (${(error as Error).message})` });
        }
      case 'retain':
        return reconnecting(() => history.retain(message.retention));
      case 'retain-logs':
        return reconnecting(() => history.retainLogs(message.hours));
      case 'query':
        try {
          return post({ type: 'result', requestId: message.requestId, json: await reconnecting(() => answer(history, message.query)) });
        } catch (error) {
          if (!connectionLost(error)) throw error;
          return post({ type: 'failed', requestId: message.requestId, message: (error as Error).message });
        }
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
      // A trim or retention given up on: the next one catches up.
      if (connectionLost(error)) return post({ type: 'log', line: `The request history could not reach its database: ${(error as Error).message}` });
      // better-sqlite3's SqliteError reaches the main thread as a bare object without its text: rethrow the text. The
      // rejection is left unhandled, which ends the worker with it.
      const { message: text, code } = error as { message: string; code?: string };
      throw new Error(code ? `${text} (${code})` : text);
    });
  };
  const trimming = setInterval(() => inTurn(() => reconnecting(() => history.trim())), TRIM_EVERY_MS).unref();
  const onMessage = (message: HistoryRequest) => inTurn(() => handle(message));
  port.on('message', onMessage);
  post({ type: 'ready' });
}

void serve();
