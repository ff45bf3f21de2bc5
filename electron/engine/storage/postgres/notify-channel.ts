import pg from 'pg';

type Listener = (payload: string) => void;

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

export interface NotifyChannelOptions {
  /** Called after the connection came back: notifications sent while it was down are lost, so re-read what matters. */
  onReconnect?: () => void;
  /** Called with what a listener threw, and with each failed attempt to connect; the channel goes on either way. */
  onError?: (error: unknown) => void;
}

/**
 * The process's one LISTEN connection: delivers NOTIFY payloads on named channels to local listeners. Payloads are
 * small ids, never data (a NOTIFY is seen by every session of the database that listens). A sender notifies within
 * the transaction that made the change (`SELECT pg_notify(channel, id)`), so the notification goes out at its commit
 * and never for a change rolled back. When the connection drops it reconnects with backoff, LISTENs again on every
 * channel and calls `onReconnect`.
 */
export class NotifyChannel {
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = FIRST_RETRY_MS;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly options: NotifyChannelOptions = {},
  ) {}

  /** Connects and listens on the channels named so far; resolves once it does (a first failure is thrown). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Calls `listener` with each payload NOTIFYed on `channel`; answers a function that stops it. */
  async listen(channel: string, listener: Listener): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      if (this.client) await this.client.query(`LISTEN ${this.client.escapeIdentifier(channel)}`);
    }
    set.add(listener);
    return async () => {
      set.delete(listener);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      if (this.client) await this.client.query(`UNLISTEN ${this.client.escapeIdentifier(channel)}`);
    };
  }

  /** Closes the connection and stops reconnecting; nothing is delivered after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', ({ channel, payload }) => this.deliver(channel, payload ?? ''));
    // A dropped connection errors (or just ends): either way, start over on a new one.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    if (this.stopped) {
      await client.end();
      return;
    }
    // Current before it listens, so a channel named meanwhile is listened to by listen() itself.
    this.client = client;
    try {
      for (const channel of [...this.listeners.keys()]) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      this.client = null;
      await client.end().catch(() => undefined);
      throw error;
    }
    this.retryMs = FIRST_RETRY_MS;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.stopped) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.reconnectLater();
  }

  private reconnectLater(): void {
    const delay = this.retryMs * (0.5 + Math.random() / 2);
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().then(
        () => {
          if (!this.stopped) this.options.onReconnect?.();
        },
        (error: unknown) => {
          this.options.onError?.(error);
          if (!this.stopped) this.reconnectLater();
        },
      );
    }, delay);
    this.retry.unref();
  }

  private deliver(channel: string, payload: string): void {
    for (const listener of this.listeners.get(channel) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }
}
