import { progressOf, type TransactionView } from '../../../shared/workbench/transaction-contract';
import type { TransactionChange } from './transaction-manager';
import type { TransactionPanel } from './transaction-panel';

/** How long after its expiry or end a transaction's mark is kept: far longer than any read of it heard of before takes. */
const MARK_MS = 60_000;

/**
 * The transaction views the engine's listeners are shown, forward only. A change made here is shown as its own unit
 * left it (TransactionChange.seen) when it was read there, else read now, as is another replica's change, which
 * reaches this one as a notice. Reads of one transaction run one at a time, a notice heard meanwhile making one more;
 * and a view not past the last one shown of its transaction (a read answered late, two changes' answers heard out of
 * order) is dropped: a listener never sees a transaction go back to an earlier state.
 */
export class TransactionViews {
  /** Per transaction: how far the last view shown was, and when the mark may be forgotten (see MARK_MS). */
  private readonly shown = new Map<string, { progress: number; until: number }>();
  /** Per transaction being read: whether a notice heard meanwhile asks for one more read. */
  private readonly reading = new Map<string, boolean>();
  private nextSweep = 0;

  constructor(
    private readonly panel: TransactionPanel,
    private readonly show: (view: TransactionView) => void,
  ) {}

  /** A change this process made: shown from what its unit read, or read now. */
  changed({ id, seen }: Pick<TransactionChange, 'id' | 'seen'>): void {
    if (seen) this.admit(this.panel.shown(seen));
    else void this.read(id);
  }

  /** Reads transaction `id` as it is now and shows it; a failed read leaves the page to its next listing. */
  async read(id: string): Promise<void> {
    if (this.reading.has(id)) {
      this.reading.set(id, true);
      return;
    }
    try {
      do {
        this.reading.set(id, false);
        const view = await this.panel.get(id);
        if (view) this.admit(view);
      } while (this.reading.get(id));
    } catch {
      // Nothing to show: the workbench lists the transactions again when it next reads them.
    } finally {
      this.reading.delete(id);
    }
  }

  /** Nobody is shown the views any more: what they were shown is forgotten. */
  reset(): void {
    this.shown.clear();
  }

  private admit(view: TransactionView): void {
    const now = Date.now();
    this.sweep(now);
    const progress = progressOf(view);
    if (progress <= (this.shown.get(view.id)?.progress ?? -1)) return;
    // Past its expiry an open transaction changes no more but to end, and an ended one not at all.
    const until = Math.max(Date.parse(view.expires_at), view.ended_at === null ? 0 : Date.parse(view.ended_at)) + MARK_MS;
    this.shown.set(view.id, { progress, until });
    this.show(view);
  }

  /** Forgets the marks past their time, in one pass at most every MARK_MS. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + MARK_MS;
    for (const [id, { until }] of this.shown) if (until < now) this.shown.delete(id);
  }
}
