/**
 * When a client last sent the service a request: what lets background work (webhook deliveries) tell an engine that
 * is serving clients from one that is idle. One number written per request, so it costs the request nothing.
 */
export class ClientActivity {
  private lastAt = Number.NEGATIVE_INFINITY;

  noteRequest(): void {
    this.lastAt = performance.now();
  }

  /** Milliseconds since the last request (Infinity before the first). */
  sinceLastRequest(): number {
    return performance.now() - this.lastAt;
  }
}
