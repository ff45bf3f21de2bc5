import { nowIso } from '../clock';
import type { Db } from '../storage/database';
import type { TokenStore } from './token-store';

/** How long marks wait before they are written together, and how many make the write come sooner. */
const FLUSH_AFTER_MS = 1_000;
const FLUSH_AT = 5_000;

const monthOf = (iso: string) => iso.slice(0, 7);

/**
 * The tokens created, read or used in each UTC month: the usage report's monthly active tokens. Marking costs a set
 * insertion on the request's path; the marks are written in one statement batch a second later (or sooner when many
 * wait), each token once per month, and a count writes those waiting first.
 */
export class ActiveTokens {
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly stmt;
  private readonly write: (ids: readonly string[], month: string) => void;

  constructor(
    private readonly db: Db,
    store: TokenStore,
  ) {
    this.stmt = {
      insert: db.prepare('INSERT OR IGNORE INTO active_tokens (month, token_id) VALUES (?, ?)'),
      count: db.prepare('SELECT COUNT(*) AS n FROM active_tokens WHERE month = ?'),
      purge: db.prepare('DELETE FROM active_tokens WHERE month < ?'),
    };
    this.write = db.transaction((ids: readonly string[], month: string) => {
      for (const id of ids) this.stmt.insert.run(month, id);
    });
    // A create counts once it is in the vault: a transaction's staged create only at its commit.
    store.onApplied((writes) => {
      for (const write of writes) if (write.op === 'create') this.mark(write.token.id);
    });
  }

  mark(id: string): void {
    this.pending.add(id);
    if (this.pending.size >= FLUSH_AT) setImmediate(this.flush);
    else this.timer ??= setTimeout(this.flush, FLUSH_AFTER_MS).unref();
  }

  /** Writes the waiting marks into the current month. */
  readonly flush = (): void => {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0 || !this.db.open) return;
    const ids = [...this.pending];
    this.pending = new Set();
    this.write(ids, monthOf(nowIso()));
  };

  /** The tokens active in the current UTC month. */
  count(): number {
    this.flush();
    return (this.stmt.count.get(monthOf(nowIso())) as { n: number }).n;
  }

  /** Forgets the months before this one (housekeeping). */
  purgeOld(): void {
    this.stmt.purge.run(monthOf(nowIso()));
  }

  /** Forgets every month (a deleted tenant's); marks still waiting go too. */
  clear(): void {
    this.pending = new Set();
    this.db.prepare('DELETE FROM active_tokens').run();
  }
}
