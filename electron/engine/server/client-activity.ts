/**
 * Whether the service is answering clients' API requests now, and for how long it has not: what lets background work
 * (webhook deliveries) give way to clients. Two counters touched per request, so it costs a request nothing.
 */
export class ClientActivity {
  private inFlight = 0;
  private lastEndedAt = Number.NEGATIVE_INFINITY;

  requestStarted(): void {
    this.inFlight++;
  }

  requestEnded(): void {
    this.inFlight--;
    this.lastEndedAt = performance.now();
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
