/**
 * How much of the engine's time webhook deliveries may take while clients are being served. A webhook on a frequent
 * event (every `token.read`) would otherwise make each request pay for a signed POST, and an integration's load test
 * would measure the webhooks instead of the vault. So while a client has asked anything within IDLE_AFTER_MS,
 * deliveries get SHARE_WHILE_BUSY of the time, measured as the wall time during which any delivery is in flight
 * (which over-counts a slow receiver and never under-counts the engine); the rest wait in order, and go at full speed
 * once the clients pause. Nothing is dropped: a delivery waits, it is never skipped.
 */
export const SHARE_WHILE_BUSY = 0.05;
/** Without a request for this long, the engine counts as idle. */
export const IDLE_AFTER_MS = 100;
/** Time deliveries may take at once after a pause: a lone event is delivered at once even under load. */
const BURST_MS = 20;
/** The most a long delivery can put deliveries behind, so none waits more than DEBT_MS / SHARE_WHILE_BUSY for the next. */
const DEBT_MS = 100;

export class DeliveryPacer {
  private credit = BURST_MS;
  private settledAt = performance.now();
  private inFlight = 0;

  constructor(private readonly sinceLastRequest: () => number) {}

  /** Milliseconds before the next delivery may start; 0 when it may start now. */
  waitMs(): number {
    this.settle();
    const idleIn = IDLE_AFTER_MS - this.sinceLastRequest();
    if (idleIn <= 0 || this.credit > 0) return 0;
    return Math.min(Math.ceil(-this.credit / SHARE_WHILE_BUSY), Math.ceil(idleIn));
  }

  /** Synchronous work done for deliveries outside an attempt (handing events over). */
  spent(ms: number): void {
    this.settle();
    if (this.sinceLastRequest() < IDLE_AFTER_MS) this.credit = Math.max(-DEBT_MS, this.credit - ms);
  }

  started(): void {
    this.settle();
    this.inFlight++;
  }

  finished(): void {
    this.settle();
    this.inFlight--;
  }

  /** Credit accrues at the share; time with a delivery in flight is spent, but only while clients are served. */
  private settle(): void {
    const now = performance.now();
    const elapsed = now - this.settledAt;
    this.settledAt = now;
    const busy = this.sinceLastRequest() < IDLE_AFTER_MS;
    const spent = busy && this.inFlight > 0 ? elapsed : 0;
    this.credit = Math.max(-DEBT_MS, Math.min(BURST_MS, this.credit + elapsed * SHARE_WHILE_BUSY - spent));
  }
}
