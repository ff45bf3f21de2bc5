/**
 * What changed, as the units that changed it committed: a store that keeps something in memory (keys, settings, hot
 * tokens) listens here, and forgets or reloads what a notice names, whichever process made the change. A unit yields
 * `tx.notify(channel, id)`; its runner hands the notice to this process's listeners once the unit has committed (never
 * for one rolled back), and, over PostgreSQL, to every other replica's too.
 */

/** Where a change was made: by this process, or by another replica over the same database. */
export type ChangeOrigin = 'here' | 'elsewhere';

export interface ChangeNotice {
  readonly channel: string;
  readonly id: string;
}

/**
 * The channel of a change too broad to name its rows (the vault wiped): for every other replica, a resync, so every
 * store holding rows reads everything again. The process that made it settles its own stores.
 */
export const EVERYTHING_CHANGED = 'everything';

type ChangeListener = (id: string, origin: ChangeOrigin) => void;

export class ChangeFeed {
  private readonly listeners = new Map<string, Set<ChangeListener>>();
  private readonly resyncs = new Set<() => void>();

  constructor(private readonly onError: (error: unknown) => void = () => undefined) {}

  /** Calls `listener` with the id of each committed change on `channel`; answers a function that stops it. */
  listen(channel: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls `listener` when notices may have been missed (a replica's notify connection came back): reload everything. */
  onResync(listener: () => void): () => void {
    this.resyncs.add(listener);
    return () => this.resyncs.delete(listener);
  }

  /** Hands committed notices to the listeners, each (channel, id) once; a listener's failure does not stop the others. */
  deliver(notices: readonly ChangeNotice[], origin: ChangeOrigin): void {
    const seen = new Set<string>();
    for (const { channel, id } of notices) {
      if (channel === EVERYTHING_CHANGED && origin === 'elsewhere') this.resync();
      const key = `${channel}\n${id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      for (const listener of this.listeners.get(channel) ?? []) this.call(() => listener(id, origin));
    }
  }

  resync(): void {
    for (const listener of this.resyncs) this.call(listener);
  }

  private call(listener: () => void): void {
    try {
      listener();
    } catch (error) {
      this.onError(error);
    }
  }
}

/** Thrown at a `tx.notify` in a unit run by `read`: a notice belongs to a change, and a read commits none. */
export const NOTIFY_IN_READ = 'A unit run as a read cannot notify a change: run it with run()';
