import pg from 'pg';

const DEFAULT_POLL_MS = 1_000;
/** The least time a check may take before it counts as a lost session, however short the poll: a database slow under load is not gone. */
const MIN_CHECK_TIMEOUT_MS = 1_000;

export interface LeadershipOptions {
  /** How often a follower tries to take the lead, and the leader checks that its session is alive. */
  pollMs?: number;
  /** Called when this process becomes the leader. */
  onLead?: () => void;
  /** Called when it stops being the leader: its session ended (it may lead again later), or it was stopped. */
  onLose?: () => void;
  /** Called with each failure to connect or to check; the leadership goes on trying either way. */
  onError?: (error: unknown) => void;
}

/**
 * Which one of the replicas over one database runs a named duty (expiry, retention): the one whose own session holds a
 * session-level advisory lock on the name. A follower tries to take the lock every poll; the leader checks its session
 * every poll. When the leader's session ends (its process killed, its connection cut), PostgreSQL releases the lock and
 * the next follower to poll takes it. Leadership keeps the replicas from doing a duty's work twice over, but a leader
 * that has not yet noticed its session ended may overlap with the next one for a poll: the duty's own units must stay
 * correct when run twice at once (rows claimed `FOR UPDATE SKIP LOCKED`, writes conditional on what they change).
 */
export class Leadership {
  private client: pg.Client | null = null;
  private leading = false;
  private stopped = false;
  private busy = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly pollMs: number;

  constructor(
    private readonly url: string,
    private readonly name: string,
    private readonly options: LeadershipOptions = {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  }

  /** Makes a first attempt at the lead (so a lone replica leads once this resolves), then polls. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Steps down (ending the session releases the lock, so a follower takes over at its next poll) and stops polling. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const client = this.client;
    this.client = null;
    this.stepDown();
    await client?.end().catch(() => undefined);
  }

  private async poll(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    const client = this.client;
    try {
      if (this.leading && client) await client.query('SELECT 1');
      else await this.tryToLead();
    } catch (error) {
      this.options.onError?.(error);
      if (client) this.lost(client);
    } finally {
      this.busy = false;
    }
  }

  private async tryToLead(): Promise<void> {
    this.client ??= await this.connect();
    const { rows } = await this.client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got', [`tokenbench:${this.name}`]);
    if (!rows[0].got || this.stopped) return;
    this.leading = true;
    this.options.onLead?.();
  }

  private async connect(): Promise<pg.Client> {
    // A check that hangs (a connection cut without a reset) counts as a lost session after a few polls.
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, query_timeout: Math.max(this.pollMs * 3, MIN_CHECK_TIMEOUT_MS) });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    return client;
  }

  /** The session ended or stopped answering: whatever lock it held is gone with it. */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.stepDown();
  }

  private stepDown(): void {
    if (!this.leading) return;
    this.leading = false;
    this.options.onLose?.();
  }
}
