/**
 * A pause between two requests shorter than this counts as time spent answering them: a client that sends its next
 * request as soon as the last is answered keeps the engine as busy as one with a request always in flight. A client
 * that waits for something (a webhook's delivery) before its next request pauses longer.
 */
const BACK_TO_BACK_MS = 0.5;

/**
 * When the service is answering clients' API requests: what lets background work (webhook deliveries) give way to
 * clients. A counter and a clock read per request, so it costs a request nothing.
 */
export class ClientActivity {
  private inFlight = 0;
  private lastEndedAt = Number.NEGATIVE_INFINITY;
  private servingSince = 0;
  private servedBefore = 0;
  private startedCount = 0;

  requestStarted(): void {
    this.startedCount++;
    if (this.inFlight++ > 0) return;
    this.servingSince = performance.now();
    const pause = this.servingSince - this.lastEndedAt;
    if (pause < BACK_TO_BACK_MS) this.servedBefore += pause;
  }

  requestEnded(): void {
    const now = performance.now();
    if (--this.inFlight === 0) this.servedBefore += now - this.servingSince;
    this.lastEndedAt = now;
  }

  /** Milliseconds during which at least one request was being answered, since the start, with the pauses between back-to-back ones (counted as the next starts). */
  servedMs(): number {
    return this.servedBefore + (this.inFlight > 0 ? performance.now() - this.servingSince : 0);
  }

  /** Requests started since the start. */
  requests(): number {
    return this.startedCount;
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
