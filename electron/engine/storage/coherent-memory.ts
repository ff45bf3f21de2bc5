import type { ChangeFeed } from './change-feed';
import { type AnyUnitRunner, type Query, tx } from './unit';

const RETRY_MS = 1_000;

/** A store that holds rows in memory, as `keepCoherent` drives it. */
export interface CoherentMemory {
  /** The change feed's channel its units notify on, with the changed row's id. */
  readonly channel: string;
  /** Reads the row `id` again and settles it, forgetting it when it is gone. */
  reloadOne(id: string): Promise<void>;
  /** Reads everything it holds again. */
  reloadAll(): Promise<void>;
}

/**
 * Keeps a store's memory in step with what other replicas change in the same database: a notice from elsewhere on its
 * channel reloads that row, and a resync (notices may have been lost) reloads everything. Its own changes it settles
 * itself after they commit. Reloads run one after another, so an older read never lands after a newer one; a reload
 * that fails (the database away for a moment) is followed by a full reload a second later, until one succeeds.
 */
export function keepCoherent(feed: ChangeFeed, memory: CoherentMemory): () => void {
  let queue = Promise.resolve();
  let retry: NodeJS.Timeout | null = null;
  const reloading = (work: () => Promise<void>) => {
    queue = queue.then(work).catch(() => {
      retry ??= setTimeout(() => {
        retry = null;
        reloading(() => memory.reloadAll());
      }, RETRY_MS).unref();
    });
  };
  const stopOne = feed.listen(memory.channel, (id, origin) => {
    if (origin === 'elsewhere') reloading(() => memory.reloadOne(id));
  });
  const stopAll = feed.onResync(() => reloading(() => memory.reloadAll()));
  return () => {
    stopOne();
    stopAll();
    if (retry) clearTimeout(retry);
  };
}

/**
 * `keepCoherent` for a store whose memory is rows of one table: a notice's row read again by id (`one`, with `?`) and
 * handed to `settleRow` (undefined once gone); everything read again by `reloadAll`.
 */
export function keepRowsCoherent<Row>(
  units: AnyUnitRunner,
  channel: string,
  one: Query<Row>,
  settleRow: (id: string, row: Row | undefined) => void,
  reloadAll: () => Promise<void>,
): () => void {
  return keepCoherent(units.changes, { channel, reloadOne: async (id) => settleRow(id, await units.read(() => tx.get(one, [id]))), reloadAll });
}
