import type { AnyUnitRunner } from '../storage/unit';
import type { TokenStore } from './token-store';

/**
 * How many live tokens the vault holds, as the engine's status shows it: a status answers at once, for its callers
 * (the live feed, Electron's IPC, the Composer's first-run view) read it synchronously. Over SQLite each status counts
 * at once; over PostgreSQL, where a count is a query, it answers the last count read, read again after every write
 * this replica or another makes (the store hears both) and at start, so it trails a change by one read.
 */
export class TokenCount {
  private last = 0;
  private reading = false;
  private again = false;
  private counting = false;

  constructor(private readonly store: Pick<TokenStore<AnyUnitRunner>, 'count' | 'onWrite'>) {}

  /** Reads the first count; over PostgreSQL, from now on after every write. */
  async start(): Promise<void> {
    const first = this.store.count();
    if (!(first instanceof Promise)) return;
    this.counting = true;
    this.last = await first;
    this.store.onWrite(() => this.refresh());
  }

  current(): number {
    if (this.counting) return this.last;
    return this.store.count() as number;
  }

  /** One read at a time; writes meanwhile make one more read after it. A failed read keeps the last count. */
  private refresh(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void (this.store.count() as Promise<number>)
      .then((n) => (this.last = n), () => undefined)
      .finally(() => {
        this.reading = false;
        if (!this.again) return;
        this.again = false;
        this.refresh();
      });
  }
}
