import { performance } from 'node:perf_hooks';
import { SealError, type Sealer } from '../storage/crypto';
import { type AnyUnitRunner, afterRun, query, tx, type Unit } from '../storage/unit';
import { isCardType } from './card-details';
import { derivedTermHashes } from './search-terms';

/** Tokens a batch reads; it indexes them until its time is up, so a request arriving meanwhile waits at most that. */
const BATCH = 200;
const BATCH_MS = 10;

interface BacklogRow {
  id: string;
  type: string;
  metadata: string;
  sealed: Buffer;
}

/** A token's search term; a term it has already is kept. Every write of terms (the vault's and the backlog's) uses it. */
export const insertTerm = query('insert search term', 'INSERT OR IGNORE INTO token_search_terms (token_id, term_hash) VALUES (?, ?)', {
  postgres: 'INSERT INTO token_search_terms (token_id, term_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING',
});

const backlog = {
  count: query<number>('term backlog count', 'SELECT COUNT(*) FROM token_terms_backlog', { pluck: true }),
  // From the list to the tokens: a join may walk the tokens instead, past every one indexed already.
  rows: query<BacklogRow>('term backlog batch', `SELECT id, type, metadata, sealed FROM tokens WHERE id IN (SELECT token_id FROM token_terms_backlog LIMIT ${BATCH})`),
  done: query('term backlog done', 'DELETE FROM token_terms_backlog WHERE token_id = ?'),
};

/**
 * The tokens written before cards and metadata values were searchable, which the migration listed: their terms are
 * derived after the engine starts, a batch a turn of the event loop, so start-up waits for none of it and requests
 * are answered between batches, each of which stops after BATCH_MS. Each batch commits together with taking its tokens off the list, so a stop or a
 * crash part way resumes where it was. A token deleted meanwhile leaves the list with it (ON DELETE CASCADE); one
 * written meanwhile already has its terms, and deriving them again changes nothing.
 */
export class TermBacklog {
  private left = 0;
  private next: NodeJS.Immediate | null = null;
  private stopped = false;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    /** A row's data, unsealed (TokenStore's). */
    private readonly open: (row: { id: string; sealed: Buffer }) => unknown,
  ) {}

  /** Tokens whose card details and metadata values cannot be found yet. */
  get unindexed(): number {
    return this.left;
  }

  /** Works through the list in the background; `log` hears why it stopped, should a batch fail. */
  start(log: (line: string) => void): void {
    const stopped = (error: unknown) => log(`Indexing the card details and metadata of existing tokens stopped, ${this.left} left: ${(error as Error).message}`);
    const step = () => {
      this.next = null;
      try {
        const indexed = afterRun(this.units.run(() => this.indexing()), (n) => {
          this.left = n < 0 ? 0 : Math.max(1, this.left - n);
          if (this.left > 0 && !this.stopped) this.next = setImmediate(step);
        });
        if (indexed instanceof Promise) indexed.catch(stopped);
      } catch (error) {
        stopped(error);
      }
    };
    // Counted at once on SQLite, so the workbench knows what is left from the start.
    const counted = afterRun(this.units.read(() => tx.get(backlog.count)), (left) => {
      this.left = left ?? 0;
      if (this.left > 0 && !this.stopped) this.next = setImmediate(step);
    });
    if (counted instanceof Promise) counted.catch(stopped);
  }

  stop(): void {
    this.stopped = true;
    if (this.next) clearImmediate(this.next);
    this.next = null;
  }

  /** One batch: the tokens indexed, or -1 when none was left. */
  private *indexing(): Unit<number> {
    const batch = yield* tx.all(backlog.rows);
    if (batch.length === 0) return -1;
    const until = performance.now() + BATCH_MS;
    let indexed = 0;
    for (const row of batch) {
      for (const term of derivedTermHashes(this.sealer, { type: row.type, metadata: JSON.parse(row.metadata) as Record<string, string>, data: this.cardData(row) })) {
        yield* tx.run(insertTerm, [row.id, term]);
      }
      yield* tx.run(backlog.done, [row.id]);
      indexed++;
      if (performance.now() >= until) break;
    }
    return indexed;
  }

  /** The data of a card, unsealed once; none for other types, and none for a card that no longer opens (its metadata still counts). */
  private cardData(row: BacklogRow): unknown {
    if (!isCardType(row.type)) return undefined;
    try {
      return this.open(row);
    } catch (error) {
      if (error instanceof SealError) return undefined;
      throw error;
    }
  }
}
