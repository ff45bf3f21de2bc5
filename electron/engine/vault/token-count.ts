import type { AnyUnitRunner } from '../storage/unit';
import type { TokenStore } from './token-store';

/** How often a PostgreSQL replica counts again while tokens are being written: a count is a scan, not a lookup. */
const RECOUNT_MS = 1_000;

/**
 * How many live tokens the vault holds, as the engine's status shows it: a status answers at once, for its callers
 * (the live feed, Electron's IPC, the Composer's first-run view) read it synchronously. Over SQLite each status counts
 * at once; over PostgreSQL, where a count is a query, it answers the last count read, read at start and again after a
 * write this replica or another makes (the store hears both), at most once a second, so a stream of creates does not
 * keep the database scanning.
 */
export class TokenCount {
  private last = 0;
  private counting = false;
  private timer: NodeJS.Timeout | null = null;
  private countedAt = 0;

  constructor(private readonly store: Pick<TokenStore<AnyUnitRunner>, 'count' | 'onWrite'>) {}

  /** Reads the first count; over PostgreSQL, from now on after writes. */
  async start(): Promise<void> {
    const first = this.store.count();
    if (!(first instanceof Promise)) return;
    this.counting = true;
    this.last = await first;
    this.store.onWrite(() => this.recountSoon());
  }

  current(): number {
    if (this.counting) return this.last;
    return this.store.count() as number;
  }

  /** No more counts (the engine stops). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.counting = false;
  }

  /** Writes meanwhile join the pending read; a failed read keeps the last count. */
  private recountSoon(): void {
    if (this.timer || !this.counting) return;
    // The first write after a quiet second is counted at once; those that follow it, a second after the last count.
    const wait = Math.max(0, this.countedAt + RECOUNT_MS - Date.now());
    this.timer = setTimeout(() => {
      // Cleared before the read: a write the read may miss schedules the next one.
      this.timer = null;
      this.countedAt = Date.now();
      void (this.store.count() as Promise<number>).then((n) => (this.last = n), () => undefined);
    }, wait);
    this.timer.unref();
  }
}
