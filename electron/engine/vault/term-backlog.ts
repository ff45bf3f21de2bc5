import { performance } from 'node:perf_hooks';
import type { Db } from '../storage/database';
import { SealError, type Sealer } from '../storage/crypto';
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

/**
 * The tokens written before cards and metadata values were searchable, which the migration listed: their terms are
 * derived after the engine starts, a batch a turn of the event loop, so start-up waits for none of it and requests
 * are answered between batches, each of which stops after BATCH_MS. Each batch commits together with taking its tokens off the list, so a stop or a
 * crash part way resumes where it was. A token deleted meanwhile leaves the list with it (ON DELETE CASCADE); one
 * written meanwhile already has its terms, and deriving them again changes nothing.
 */
export class TermBacklog {
  private left: number;
  private next: NodeJS.Immediate | null = null;
  private readonly batch: () => number;

  constructor(
    db: Db,
    private readonly sealer: Sealer,
    /** A row's data, unsealed (TokenStore's). */
    private readonly open: (row: { id: string; sealed: Buffer }) => unknown,
  ) {
    this.left = db.prepare('SELECT COUNT(*) FROM token_terms_backlog').pluck().get() as number;
    // From the list to the tokens: a join may walk the tokens instead, past every one indexed already.
    const rows = db.prepare(`SELECT id, type, metadata, sealed FROM tokens WHERE id IN (SELECT token_id FROM token_terms_backlog LIMIT ${BATCH})`);
    const insertTerm = db.prepare('INSERT OR IGNORE INTO token_search_terms (token_id, term_hash) VALUES (?, ?)');
    const done = db.prepare('DELETE FROM token_terms_backlog WHERE token_id = ?');
    // The tokens indexed, or -1 when none was left.
    this.batch = db.transaction(() => {
      const batch = rows.all() as BacklogRow[];
      if (batch.length === 0) return -1;
      const until = performance.now() + BATCH_MS;
      let indexed = 0;
      for (const row of batch) {
        for (const term of derivedTermHashes(this.sealer, { type: row.type, metadata: JSON.parse(row.metadata) as Record<string, string>, data: this.cardData(row) })) {
          insertTerm.run(row.id, term);
        }
        done.run(row.id);
        indexed++;
        if (performance.now() >= until) break;
      }
      return indexed;
    });
  }

  /** Tokens whose card details and metadata values cannot be found yet. */
  get unindexed(): number {
    return this.left;
  }

  /** Works through the list in the background; `log` hears why it stopped, should a batch fail. */
  start(log: (line: string) => void): void {
    const step = () => {
      this.next = null;
      try {
        const indexed = this.batch();
        this.left = indexed < 0 ? 0 : Math.max(1, this.left - indexed);
      } catch (error) {
        log(`Indexing the card details and metadata of existing tokens stopped, ${this.left} left: ${(error as Error).message}`);
        return;
      }
      if (this.left > 0) this.next = setImmediate(step);
    };
    if (this.left > 0) this.next = setImmediate(step);
  }

  stop(): void {
    if (this.next) clearImmediate(this.next);
    this.next = null;
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
