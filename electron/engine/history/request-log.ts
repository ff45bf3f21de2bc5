import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Db } from '../vault/database';

/**
 * The history every GUI panel reads: one entry per request that reached the engine. Entries hold the request as the
 * client sent it (proxy bodies keep their {{ expressions }}), with token data masked and secrets cut to a hint.
 */
export interface RequestLogEntry {
  id: string;
  at: string;
  kind: 'api' | 'proxy' | 'workbench';
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  application_id: string | null;
  trace_id: string | null;
  request_headers: [string, string][];
  request_body?: unknown;
  details?: Record<string, unknown>;
}

export type NewRequestLogEntry = Omit<RequestLogEntry, 'id' | 'at'>;

const FLUSH_EVERY_MS = 100;
/** Flush early once this much JSON waits, so one batch never stalls the event loop for long. */
const FLUSH_AT_BYTES = 256 * 1024;

/**
 * Writes are batched: history is not acknowledged data, and one transaction per 100 ms keeps the log off the
 * vault's hot path. Everything is flushed on stop.
 */
export class RequestLog extends EventEmitter<{ entry: [RequestLogEntry] }> {
  /** Entries serialized as they are recorded, spreading that cost instead of paying it all at a flush. */
  private pending: [id: string, json: string][] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly stmt;
  private readonly flushBatch;

  constructor(
    private readonly db: Db,
    private readonly limit: number,
  ) {
    super();
    this.stmt = {
      insert: db.prepare('INSERT INTO request_log (id, entry) VALUES (?, ?)'),
      trim: db.prepare('DELETE FROM request_log WHERE seq <= (SELECT MAX(seq) FROM request_log) - ?'),
      recent: db.prepare('SELECT entry FROM request_log ORDER BY seq DESC LIMIT ?'),
      before: db.prepare(
        'SELECT entry FROM request_log WHERE seq < (SELECT seq FROM request_log WHERE id = ?) ORDER BY seq DESC LIMIT ?',
      ),
      get: db.prepare('SELECT entry FROM request_log WHERE id = ?'),
    };
    this.flushBatch = db.transaction((entries: [string, string][]) => {
      for (const [id, json] of entries) this.stmt.insert.run(id, json);
      this.stmt.trim.run(this.limit);
    });
  }

  record(draft: NewRequestLogEntry): RequestLogEntry {
    const entry: RequestLogEntry = { id: randomUUID(), at: new Date().toISOString(), ...draft };
    const json = JSON.stringify(entry);
    this.pending.push([entry.id, json]);
    this.pendingBytes += json.length;
    if (this.pendingBytes >= FLUSH_AT_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_EVERY_MS).unref();
    this.emit('entry', entry);
    return entry;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 || !this.db.open) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.flushBatch(batch);
  }

  /** Newest first; `before` pages back from an entry id. */
  list(limit = 100, before?: string): RequestLogEntry[] {
    this.flush();
    const rows = (before ? this.stmt.before.all(before, limit) : this.stmt.recent.all(limit)) as { entry: string }[];
    return rows.map((r) => JSON.parse(r.entry));
  }

  get(id: string): RequestLogEntry | undefined {
    this.flush();
    const row = this.stmt.get.get(id) as { entry: string } | undefined;
    return row && JSON.parse(row.entry);
  }
}
