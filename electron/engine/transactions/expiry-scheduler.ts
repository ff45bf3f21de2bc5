// setTimeout stores its delay in 32 bits; a later expiry is re-checked at this distance.
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * One timer, armed for the earliest expiry among open transactions (no polling). When it fires it expires what is
 * due and re-arms for the next; a timer that fires a little early simply re-arms for the remainder.
 */
export class ExpiryScheduler {
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  private stopped = false;

  constructor(
    /** The earliest `expires_at` of an open transaction (ISO), or null when none is open. */
    private readonly nextExpiry: () => string | null | Promise<string | null>,
    private readonly expireDue: () => Promise<void>,
  ) {}

  /**
   * Arms for the earliest open expiry, unless the timer is set sooner: an expiry considered while the read was awaited
   * stays armed, and a timer that turns out early only re-arms when it fires.
   */
  async reschedule(): Promise<void> {
    const next = await this.nextExpiry();
    if (next !== null) this.consider(Date.parse(next));
  }

  /** Arms for `atMs` when that is sooner than the timer already set (a new transaction's expiry). */
  consider(atMs: number): void {
    if (atMs < this.armedFor) this.arm(atMs);
  }

  stop(): void {
    this.stopped = true;
    this.arm(Infinity);
  }

  private arm(atMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = atMs;
    if (this.stopped || atMs === Infinity) return;
    const delay = Math.min(Math.max(atMs - Date.now(), 0), MAX_DELAY_MS);
    // unref: a pending expiry never keeps the process alive on its own.
    this.timer = setTimeout(this.fire, delay).unref();
  }

  private readonly fire = () => {
    this.timer = null;
    this.armedFor = Infinity;
    void this.expireDue().then(() => this.reschedule());
  };
}
