/**
 * When the service is answering clients' API requests: what lets background work (webhook deliveries) give way to
 * clients. A counter and a clock read per request, so it costs a request nothing.
 */
export class ClientActivity {
  private inFlight = 0;
  private lastEndedAt = Number.NEGATIVE_INFINITY;
  private servingSince = 0;
  private servedBefore = 0;

  requestStarted(): void {
    if (this.inFlight++ === 0) this.servingSince = performance.now();
  }

  requestEnded(): void {
    const now = performance.now();
    if (--this.inFlight === 0) this.servedBefore += now - this.servingSince;
    this.lastEndedAt = now;
  }

  /** Milliseconds during which at least one request was being answered, since the start. */
  servedMs(): number {
    return this.servedBefore + (this.inFlight > 0 ? performance.now() - this.servingSince : 0);
  }

  /** Whether some request is being answered now. */
  serving(): boolean {
    return this.inFlight > 0;
  }

  /** Milliseconds without any request being answered (0 while one is; Infinity before the first). */
  quietFor(): number {
    return this.inFlight > 0 ? 0 : performance.now() - this.lastEndedAt;
  }
}
