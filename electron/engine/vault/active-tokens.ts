import { nowIso } from '../clock';
import { type Answer, answerOf, type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';
import type { TokenStore } from './token-store';

/** How long marks wait before they are written together, and how many make the write come sooner. */
const FLUSH_AFTER_MS = 1_000;
const FLUSH_AT = 5_000;

const monthOf = (iso: string) => iso.slice(0, 7);

const statements = {
  insert: query('mark active token', 'INSERT OR IGNORE INTO active_tokens (month, token_id) VALUES (?, ?)', {
    postgres: 'INSERT INTO active_tokens (month, token_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
  }),
  count: query<number>('active token count', 'SELECT COUNT(*) FROM active_tokens WHERE month = ?', { pluck: true }),
  purge: query('forget active tokens of past months', 'DELETE FROM active_tokens WHERE month < ?'),
  clear: query('forget every active token', 'DELETE FROM active_tokens'),
};

/**
 * The tokens created, read or used in each UTC month: the usage report's monthly active tokens. Marking costs a set
 * insertion on the request's path; the marks are written in one unit a second later (or sooner when many wait), each
 * token once per month, and a count writes those waiting first. Over either runner (`R`): at once over SQLite's.
 */
export class ActiveTokens<R extends AnyUnitRunner = AnyUnitRunner> {
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly units: R,
    store: Pick<TokenStore, 'onApplied'>,
  ) {
    // A create counts once it is in the vault: a transaction's staged create only at its commit.
    store.onApplied((writes) => {
      for (const write of writes) if (write.op === 'create') this.mark(write.token.id);
    });
  }

  mark(id: string): void {
    this.pending.add(id);
    if (this.pending.size >= FLUSH_AT) setImmediate(this.flushLater);
    else this.timer ??= setTimeout(this.flushLater, FLUSH_AFTER_MS).unref();
  }

  /** A usage metric, written off any request: marks a write could not keep (a database closed meanwhile) are lost. */
  private readonly flushLater = (): void => {
    try {
      const written = this.flush();
      if (written instanceof Promise) written.catch(() => undefined);
    } catch {
      // As above: lost, like the marks of a stopped engine.
    }
  };

  /** The waiting marks, taken for a unit that writes them. */
  private taken(): string[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    const ids = [...this.pending];
    this.pending = new Set();
    return ids;
  }

  /** Writes the waiting marks into the current month. */
  flush(): Answer<R, void> {
    const ids = this.taken();
    return answerOf<R, void, void>(this.units.run(() => marking(ids, monthOf(nowIso()))), () => undefined);
  }

  /** The tokens active in the current UTC month, the waiting marks written first in the same unit. */
  count(): Answer<R, number> {
    const ids = this.taken();
    const month = monthOf(nowIso());
    const counted = this.units.run(function* () {
      yield* marking(ids, month);
      return yield* tx.get(statements.count, [month]);
    });
    return answerOf<R, number | undefined, number>(counted, (n) => n ?? 0);
  }

  /** Forgets the months before this one (housekeeping). */
  purgeOld(): Answer<R, void> {
    return answerOf<R, unknown, void>(this.units.run(() => tx.run(statements.purge, [monthOf(nowIso())])), () => undefined);
  }

  /** Forgets every month (a deleted tenant's); marks still waiting go too. */
  clear(): Answer<R, void> {
    return this.units.run(() => this.clearing()) as Answer<R, void>;
  }

  /** The unit of `clear`, for a larger one to join (a deleted tenant's wipe). */
  *clearing(): Unit<void> {
    this.pending = new Set();
    yield* tx.run(statements.clear);
  }
}

function* marking(ids: readonly string[], month: string): Unit<void> {
  for (const id of ids) yield* tx.run(statements.insert, [month, id]);
}
