import type { RequestLog, RequestLogEntry } from '../history/request-log';
import type { EngineStatus, SentLiveEvent } from '../../../shared/workbench/contract';

export type LiveUpdate = Extract<SentLiveEvent, { type: 'update' }>;

/** Often enough to feel live, rarely enough that a load test with the GUI open costs the engine little. */
const FLUSH_EVERY_MS = 100;
/** The GUI shows the latest requests: under load a batch keeps only the newest. */
const MAX_BATCH = 200;

/**
 * Batches the history's new entries for GUI subscribers (SSE streams, the Electron window) and sends each batch with
 * one status snapshot, so token counts stay current without polling.
 */
export class LiveFeed {
  private readonly listeners = new Set<(update: LiveUpdate) => void>();
  private pending: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly history: RequestLog,
    private readonly status: () => EngineStatus,
  ) {}

  /** The history is watched only while someone listens: with no GUI open, requests pay nothing. */
  subscribe(listener: (update: LiveUpdate) => void): () => void {
    if (this.listeners.size === 0) this.history.on('entry', this.collect);
    this.listeners.add(listener);
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.history.off('entry', this.collect);
      this.reset();
    };
  }

  private readonly collect = (entry: RequestLogEntry) => {
    this.pending.push(entry);
    // Trimmed in bulk, not per entry: amortised O(1) per request during a burst.
    if (this.pending.length >= 2 * MAX_BATCH) this.trim();
    this.timer ??= setTimeout(this.flush, FLUSH_EVERY_MS).unref();
  };

  private trim() {
    if (this.pending.length > MAX_BATCH) this.pending = this.pending.slice(-MAX_BATCH);
  }

  private readonly flush = () => {
    this.trim();
    const update: LiveUpdate = { type: 'update', status: this.status(), entries: this.pending.reverse() };
    this.reset();
    for (const listener of this.listeners) listener(update);
  };

  private reset() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = [];
  }
}
