/** One of the engine's periodic jobs: what it does to the database (a purge, an expiry) is the same whoever runs it. */
export interface HousekeepingJob {
  readonly name: string;
  run(): unknown;
}

export interface HousekeepingOptions {
  intervalMs: number;
  /**
   * Over a database shared by replicas, which one runs the jobs (`Leadership`); null where this process is the only one
   * (SQLite), which runs them at every tick.
   */
  leader: { isLeader(): boolean } | null;
  /** Called with a job's failure; the other jobs and the next ticks go on. */
  onError: (job: string, error: unknown) => void;
}

/**
 * The engine's periodic jobs (purges of what expired, pruning of what ended), run one after another at each tick. With
 * replicas over one database only the leader runs them, so each runs once per tick across the replicas; each job's
 * own writes stay correct if a leader that lost its lead overlaps with the next one for a tick.
 */
export class Housekeeping {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly jobs: readonly HousekeepingJob[],
    private readonly options: HousekeepingOptions,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs).unref();
  }

  /** Runs every job once, unless another replica leads or the last tick is still running; answers when done. */
  tick(): Promise<void> {
    if (this.running || (this.options.leader && !this.options.leader.isLeader())) return this.running ?? Promise.resolve();
    this.running = this.runAll().finally(() => (this.running = null));
    return this.running;
  }

  /** Stops the ticks and waits for one running to end. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async runAll(): Promise<void> {
    for (const job of this.jobs) {
      try {
        await job.run();
      } catch (error) {
        this.options.onError(job.name, error);
      }
    }
  }
}
