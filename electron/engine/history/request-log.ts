import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { SentHistoryEntry } from '../../../shared/workbench/history-contract';
import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import type { HistoryQuery, HistoryRequest, HistoryWorkerData, HistoryWorkerMessage } from './history-messages';
import type { HistoryRetention, StoredEntry } from './history-backend';
import type { HistoryStoreOptions } from './history-store';
import { nowIso } from '../clock';
import { timeOrderedId } from './entry-id';
import { startHistoryWorker } from './history-worker-script';
import { cardNumbersMasked, outboundShown, shownBody, type KeptBody, withOutboundBody } from './kept-body';
import type { Activity } from '../logs/entity-activity';
import { type LogPage, type LogQuery, type StoredLine, storedLine } from '../logs/log-store';

/**
 * The history every GUI panel reads: one entry per request that reached the engine. Entries hold the request as the
 * client sent it (proxy bodies keep their {{ expressions }}), with token data masked and secrets cut to a hint.
 */
export type RequestLogEntry = SentHistoryEntry;

/** Entries newest first, and the `before` of the page after them: null once none is left. */
export interface RequestLogPage {
  entries: RequestLogEntry[];
  next: string | null;
}

/**
 * What a request leaves for history; `raw_body` stands in for `request_body` when the body is kept as bytes, and
 * `answer_text` is the proxy's answer body, masked, which is stored beside the entry and read only with it alone.
 * `outbound_text` is the proxy's outbound body, its detokenized values masked: the history worker masks its card
 * numbers, as it masks those of the kept request body, and stores it beside the entry; a read puts it in
 * `details.outbound.detokenized_body`. `activities` are the request's `GET /logs` lines, written with the entry.
 */
export type NewRequestLogEntry = Omit<RequestLogEntry, 'id' | 'at'> & {
  raw_body?: KeptBody;
  answer_text?: string;
  outbound_text?: string;
  activities?: Activity[];
};

const POST_EVERY_MS = 100;
/** How many of another replica's entries are read at once: one read's message stays small. */
const READ_ELSEWHERE = 200;
/** Post early once this much JSON waits, so one batch never makes a long write or a large message. */
const POST_AT_BYTES = 256 * 1024;

type State = 'running' | 'closing' | 'closed' | 'failed';

type Waiter = { resolve: (json: string | null) => void; reject: (error: Error) => void };

const NOT_SERIALIZABLE = '[not kept: it could not be serialized]';

/**
 * The entry as JSON. Recording runs once the response is gone, where a throw would stop the service: an entry that
 * cannot be serialized (a value nested past the stack) is kept without its body and details, and says so.
 */
function serialized(entry: RequestLogEntry): string {
  try {
    return JSON.stringify(entry);
  } catch {
    entry.request_body = NOT_SERIALIZABLE;
    entry.details = { note: NOT_SERIALIZABLE };
    return JSON.stringify(entry);
  }
}

/**
 * The main thread's side of the history. Recording stays synchronous and cheap: the entry is serialized here and
 * queued, and the queue goes to the history worker (which owns `history.sqlite`, or writes to the PostgreSQL database
 * every replica shares) every 100 ms as one message. Reads post the queue first, so they see every entry recorded
 * before them; over PostgreSQL they see other replicas' entries as far as those have posted theirs. If the worker
 * dies, that is logged once and the live `entry` events go on; reads then reject.
 */
export class RequestLog extends EventEmitter<{ entry: [RequestLogEntry]; reset: [] }> {
  /** Entries serialized as they are recorded, spreading that cost instead of paying it all at once. */
  private queue: StoredEntry[] = [];
  private lines: StoredLine[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private state: State = 'running';
  private failure: Error | null = null;
  private nextRequestId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private readonly exited: Promise<void>;
  /** Other replicas' entries heard of and not read yet, and whether a read of them is under way. */
  private elsewhere = new Set<string>();
  private readingElsewhere = false;

  /** Resolves once the worker has opened the history; rejects with the reason it could not. */
  static start({ log, builtWorkers, ...options }: HistoryStoreOptions & Pick<HistoryWorkerData, 'databaseUrl' | 'origin'> & { builtWorkers?: string }): Promise<RequestLog> {
    const worker = startHistoryWorker(options, builtWorkers);
    return new Promise((resolve, reject) => {
      const fail = (why: string) => reject(new Error(`The request history could not start: ${why}`));
      const onError = (error: Error) => fail(error.message);
      const onExit = (code: number) => fail(`its worker exited with code ${code}`);
      const onMessage = (message: HistoryWorkerMessage) => {
        if (message.type === 'log') log(message.line);
        else if (message.type === 'start-failed') fail(message.message);
        else if (message.type === 'ready') {
          worker.off('message', onMessage).off('error', onError).off('exit', onExit);
          resolve(new RequestLog(worker, log));
        }
      };
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  }

  private constructor(
    private readonly worker: Worker,
    private readonly log: (line: string) => void,
  ) {
    super();
    worker.on('message', (message: HistoryWorkerMessage) => {
      if (message.type === 'log') log(message.line);
      else if (message.type === 'result') {
        const waiter = this.waiting.get(message.requestId);
        this.waiting.delete(message.requestId);
        waiter?.resolve(message.json);
      } else if (message.type === 'failed') {
        const waiter = this.waiting.get(message.requestId);
        this.waiting.delete(message.requestId);
        waiter?.reject(new Error(`The request history could not be read: ${message.message}`));
      }
    });
    // A worker may throw any value, not only an Error.
    worker.on('error', (error: unknown) => (this.failure ??= error instanceof Error ? error : new Error(String(error))));
    this.exited = new Promise((resolve) => worker.once('exit', (code) => resolve(this.ended(code))));
  }

  record(draft: NewRequestLogEntry): void {
    const raw = draft.raw_body;
    // Field by field, not rest and spread: one fixed shape instead of a property-by-property copy per request.
    const entry: RequestLogEntry = {
      id: timeOrderedId(),
      at: nowIso(),
      kind: draft.kind,
      method: draft.method,
      path: draft.path,
      status: draft.status,
      duration_ms: draft.duration_ms,
      application_id: draft.application_id,
      workbench_page: draft.workbench_page,
      workbench_environment: draft.workbench_environment,
      workbench_person: draft.workbench_person,
      trace_id: draft.trace_id,
      transaction_id: draft.transaction_id,
      request_headers: draft.request_headers,
      // Stored with the body's size only (its bytes go to their own column); shown, below, with its text.
      request_body: raw ? { bytes: raw.bytes, utf8: raw.utf8 } : draft.request_body,
      details: draft.details,
    };
    if (this.state === 'running') {
      const json = serialized(entry);
      const answer = draft.answer_text ?? null;
      const outbound = draft.outbound_text ?? null;
      this.queue.push([entry.id, json, raw?.kept ?? null, answer, outbound]);
      if (draft.activities) for (const activity of draft.activities) this.lines.push(storedLine(entry.at, activity));
      this.queuedBytes += json.length + (raw?.kept.byteLength ?? 0) + (answer?.length ?? 0) + (outbound?.length ?? 0);
      if (this.queuedBytes >= POST_AT_BYTES) this.postQueue();
      else this.timer ??= setTimeout(this.postQueue, POST_EVERY_MS).unref();
    }
    // The live view (an open workbench) is the only reader of the entry as shown; without one, no body is decoded.
    if (this.listenerCount('entry') === 0) return;
    if (raw) entry.request_body = shownBody(raw, cardNumbersMasked(raw.kept));
    if (draft.outbound_text !== undefined) withOutboundBody(entry, outboundShown(draft.outbound_text));
    this.emit('entry', entry);
  }

  /**
   * Another replica wrote the entries of these ids (its notice named them): while the live view listens, they are
   * read by id and told to it as this process's own are, one read of up to READ_ELSEWHERE at a time, every one named
   * however many entries were written since.
   */
  heardElsewhere(ids: readonly string[]): void {
    if (this.listenerCount('entry') === 0) return;
    for (const id of ids) this.elsewhere.add(id);
    if (!this.readingElsewhere) void this.readElsewhere();
  }

  private async readElsewhere(): Promise<void> {
    this.readingElsewhere = true;
    try {
      while (this.elsewhere.size > 0) {
        const wanted: string[] = [];
        for (const id of this.elsewhere) {
          this.elsewhere.delete(id);
          if (wanted.push(id) === READ_ELSEWHERE) break;
        }
        // Oldest first, as this process's own are told.
        for (const entry of await this.named(wanted)) this.emit('entry', entry);
      }
    } catch {
      // The history is unreachable: the page reads it again when its reader next pages.
      this.elsewhere.clear();
    } finally {
      this.readingElsewhere = false;
    }
  }

  /** Newest first; `before` pages back from an entry id; a filter keeps the entries it matches. */
  async list(limit = 100, before?: string, filter?: HistoryFilter): Promise<RequestLogEntry[]> {
    return JSON.parse((await this.query({ type: 'list', limit, before, filter }))!) as RequestLogEntry[];
  }

  /**
   * A page of `list` bounded by size too: it ends once its entries' JSON reaches `budget` characters, and `next` is
   * the `before` of the page after it (null: none left).
   */
  page(limit: number, budget: number, before?: string, filter?: HistoryFilter): Promise<RequestLogPage> {
    return this.pageOf({ type: 'page', limit, budget, before, filter });
  }

  /** The kept entries of these ids, oldest first, as `list` gives them; those gone since are left out. */
  async named(ids: string[]): Promise<RequestLogEntry[]> {
    return JSON.parse((await this.query({ type: 'named', ids }))!) as RequestLogEntry[];
  }

  /** The kept entries of these ids, in their order, as far as `budget` characters go; `next` is the last id given. */
  pick(ids: string[], budget: number): Promise<RequestLogPage> {
    return this.pageOf({ type: 'pick', ids, budget });
  }

  async get(id: string): Promise<RequestLogEntry | undefined> {
    const json = await this.query({ type: 'get', id });
    return json === null ? undefined : (JSON.parse(json) as RequestLogEntry);
  }

  /**
   * Keeps to a new retention from now on and trims to it at once. Reads made after this call see the trimmed history:
   * the worker handles messages in order. `reset` tells the live view to read the history again.
   */
  retain(retention: HistoryRetention): void {
    if (this.state !== 'running') return;
    this.postQueue();
    this.send({ type: 'retain', retention });
    this.emit('reset');
  }

  /** Keeps `GET /logs` lines this many hours from now on, trimming at once. */
  retainLogs(hours: number): void {
    if (this.state !== 'running') return;
    this.postQueue();
    this.send({ type: 'retain-logs', hours });
  }

  /** A page of `GET /logs` lines: a table of their own, which `clear` leaves alone. */
  async logs(query: LogQuery): Promise<LogPage> {
    return JSON.parse((await this.query({ type: 'logs', query }))!) as LogPage;
  }

  /** Removes every entry recorded so far (queued ones too), not the log lines; resolves with how many there were. */
  async clear(): Promise<number> {
    const cleared = Number(await this.query({ type: 'clear' }));
    this.emit('reset');
    return cleared;
  }

  /** Resolves once everything recorded so far is written. */
  async flush(): Promise<void> {
    await this.query({ type: 'flush' });
  }

  /** Writes what is queued, closes the history file and ends the worker. Never rejects: a failure is logged. */
  async close(): Promise<void> {
    if (this.state === 'running') {
      this.postQueue();
      this.state = 'closing';
      this.send({ type: 'close' });
    }
    await this.exited;
  }

  private readonly postQueue = () => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length === 0) return;
    this.send({ type: 'append', entries: this.queue, lines: this.lines });
    this.queue = [];
    this.lines = [];
    this.queuedBytes = 0;
  };

  private send(request: HistoryRequest): void {
    this.worker.postMessage(request);
  }

  private async pageOf(query: HistoryQuery): Promise<RequestLogPage> {
    return JSON.parse((await this.query(query))!) as RequestLogPage;
  }

  private query(query: HistoryQuery): Promise<string | null> {
    if (this.state !== 'running') return Promise.reject(this.unavailable());
    this.postQueue();
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(requestId, { resolve, reject });
      this.send({ type: 'query', requestId, query });
    });
  }

  private ended(code: number): void {
    const cleanly = this.state === 'closing' && code === 0;
    this.state = cleanly ? 'closed' : 'failed';
    if (this.timer) clearTimeout(this.timer);
    this.queue = [];
    this.lines = [];
    if (!cleanly) {
      // The error is SQLite's or Node's, about the file or the thread: it never holds entry contents.
      const why = this.failure?.message ?? `exit code ${code}`;
      this.log(`Request history stopped: ${why}. New requests are no longer saved to it; the live view goes on`);
    }
    for (const waiter of this.waiting.values()) waiter.reject(this.unavailable());
    this.waiting.clear();
  }

  private unavailable(): Error {
    return new Error(
      this.state === 'failed'
        ? 'The request history is unavailable: its worker stopped (the engine log says why)'
        : 'The request history is closed',
    );
  }
}
