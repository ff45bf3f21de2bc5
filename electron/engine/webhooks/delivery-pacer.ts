/**
 * How much of the engine's time webhook deliveries may take while clients are being served. A webhook on a frequent
 * event (every `token.read`) would otherwise make each request pay for a signed POST, and an integration's load test
 * would measure the webhooks instead of the vault. While clients are served, deliveries go one at a time, and their
 * cost is spent from a credit that grows at SHARE_WHILE_BUSY of the time; once it is spent, deliveries wait (in order)
 * until it has grown back or the clients pause for IDLE_AFTER_MS, when all go at full speed. Nothing is dropped.
 *
 * What a delivery costs depends on whether the clients wait for it. Clients that go on sending requests while it is in
 * flight (a load test, even on one connection, whose requests leave the engine idle only between them, where the
 * delivery's own work then runs) pay for its whole time in flight and for the engine's work in handing it over. A
 * client that waits for each webhook before its next request sends at most one request while a delivery is in flight,
 * and only once the receiver has it, so after its POST went out: it pays only for the time that request overlaps the
 * delivery, so it is never held back. A request that starts before the POST went out (while the delivery is being
 * signed) cannot be waiting for it, so one such request is enough to tell a load from a waiting client.
 */
export const SHARE_WHILE_BUSY = 0.05;
/** Without a request being answered for this long, the engine counts as idle: everything waiting goes. */
export const IDLE_AFTER_MS = 50;
/** Time deliveries may overlap requests at once: a lone event is delivered at once even under load. */
const BURST_MS = 20;
/** The most a long delivery can put deliveries behind, so none waits more than DEBT_MS / SHARE_WHILE_BUSY for the next. */
const DEBT_MS = 100;
/** Requests a client waiting for each webhook may start while one is in flight: the one it sends once the webhook arrived. */
const WAITING_CLIENT_REQUESTS = 1;

/** What the pacer reads of the clients (server/client-activity.ts). */
export interface ClientLoad {
  serving(): boolean;
  quietFor(): number;
  servedMs(): number;
  requests(): number;
}

export class DeliveryPacer {
  private credit = BURST_MS;
  private settledAt = performance.now();
  private inFlight = 0;
  private servedAt: number;
  /** The clients' requests started when the last delivery started. */
  private requestsAt: number;
  /** Requests started between the last delivery's start and its POST going out; null while it has not gone out. */
  private beforePost: number | null = null;
  /** Whether the clients went on sending requests while the last delivery to finish was in flight. */
  private pressed = false;

  constructor(private readonly clients: ClientLoad) {
    this.servedAt = clients.servedMs();
    this.requestsAt = clients.requests();
  }

  /** How many deliveries may be in flight at once now: one while clients are served, so their time is their cost. */
  atOnce(): number {
    return this.clients.quietFor() >= IDLE_AFTER_MS ? Number.POSITIVE_INFINITY : 1;
  }

  /** Milliseconds before the next delivery may start; 0 when it may start now. */
  waitMs(): number {
    this.settle();
    const idleIn = IDLE_AFTER_MS - this.clients.quietFor();
    if (idleIn <= 0 || this.credit > 0) return 0;
    return Math.ceil(Math.min(-this.credit / SHARE_WHILE_BUSY, idleIn));
  }

  /**
   * Synchronous work done for deliveries outside an attempt (handing events over, reading what is due), spent while
   * clients are served or went on sending requests during the last delivery.
   */
  spent(ms: number): void {
    this.settle();
    if (this.clients.serving() || this.pressed) this.credit = Math.max(-DEBT_MS, this.credit - ms);
  }

  started(): void {
    this.settle();
    this.inFlight++;
    this.requestsAt = this.clients.requests();
    this.beforePost = null;
  }

  /** The last delivery started is signed and its POST goes out now: from here on the receiver may have it. */
  posting(): void {
    this.settle();
    this.beforePost = this.clients.requests() - this.requestsAt;
  }

  finished(): void {
    this.settle();
    this.inFlight--;
    this.pressed = this.pressing();
  }

  /**
   * Whether requests started since the last delivery did that a client waiting for each webhook would not send: any
   * before its POST went out, or more than the one it sends once the webhook arrived.
   */
  private pressing(): boolean {
    const since = this.clients.requests() - this.requestsAt;
    return (this.beforePost ?? since) > 0 || since > WAITING_CLIENT_REQUESTS;
  }

  /**
   * Credit grows at the share; since the last look, time with a delivery in flight is spent: all of it while the clients
   * keep sending requests, else only while a request was being answered.
   */
  private settle(): void {
    const now = performance.now();
    const elapsed = now - this.settledAt;
    this.settledAt = now;
    const served = this.clients.servedMs();
    const spent = this.inFlight === 0 ? 0 : this.pressing() ? elapsed : Math.min(elapsed, served - this.servedAt);
    this.servedAt = served;
    this.credit = Math.max(-DEBT_MS, Math.min(BURST_MS, this.credit + elapsed * SHARE_WHILE_BUSY - spent));
  }
}
