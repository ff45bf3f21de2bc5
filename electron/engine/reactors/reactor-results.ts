/**
 * What asynchronous reacts answered (migration 18), kept 24 hours (vendor-surfaces.md §3.5) and sealed, since what
 * code returns may repeat detokenized data. A run still pending when the engine starts was lost with the process that
 * ran it: it becomes a failure saying so, which is what its caller can act on. Replicas over one database cannot tell
 * that from a run another replica is still making, so there a run is lost only once pending longer than any run lasts.
 */
import { randomUUID } from 'node:crypto';
import { ASYNC_TIMEOUT_S } from '../proxies/proxy-requests';
import type { Sealer } from '../storage/crypto';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';

/** The answer a synchronous react would have given. */
export interface ReactAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export const RESULT_TTL_MS = 24 * 60 * 60 * 1000;

interface ResultRow {
  reactor_id: string;
  state: 'pending' | 'done';
  sealed: Buffer | null;
}

const binding = (id: string) => `reactor-result:${id}`;

const insert = query('start reactor result', "INSERT INTO reactor_results (id, reactor_id, state, created_at, expires_at) VALUES (?, ?, 'pending', ?, ?)");
const finished = query('finish reactor result', "UPDATE reactor_results SET state = 'done', sealed = ? WHERE id = ?");
const one = query<ResultRow>('reactor result', 'SELECT reactor_id, state, sealed FROM reactor_results WHERE id = ? AND expires_at > ?');
const pendingIds = query<string>('pending reactor results', "SELECT id FROM reactor_results WHERE state = 'pending'", { pluck: true });
const pendingBefore = query<string>('reactor results pending long', "SELECT id FROM reactor_results WHERE state = 'pending' AND created_at < ?", { pluck: true });
// Conditional: a run that finished since it was read keeps its answer.
const lost = query('fail lost reactor result', "UPDATE reactor_results SET state = 'done', sealed = ? WHERE id = ? AND state = 'pending'");
const purge = query('purge reactor results', 'DELETE FROM reactor_results WHERE expires_at <= ?');

/** A margin past the longest run for what follows its code (tokenizing its output, keeping its answer). */
const LOST_MARGIN_MS = 5 * 60_000;

/** How long a run may stay pending on some replica before it is known lost: longer than any run may last. */
export const replicaRunsLostAfterMs = (asyncLimitMs: number): number => Math.max(asyncLimitMs, ASYNC_TIMEOUT_S * 1000) + LOST_MARGIN_MS;

/** Every run pending since before `before` (null: every pending run) becomes the failure `seal` seals for its row. */
function* failingLost(before: string | null, seal: (id: string) => Buffer): Unit<void> {
  const ids = before === null ? yield* tx.all(pendingIds) : yield* tx.all(pendingBefore, [before]);
  for (const id of ids) yield* tx.run(lost, [seal(id), id]);
}

export class ReactorResults {
  /** Runs whose answer the vault refused to keep, by id, until their time is up. */
  private readonly unkept = new Map<string, { reactorId: string; expiresAt: number }>();

  /**
   * `lostAfterMs`: null when this process alone runs reactors (SQLite), so every run pending at its start was lost;
   * with replicas, how long a run stays pending before it is known lost (replicaRunsLostAfterMs).
   */
  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    private readonly now: () => number = Date.now,
    private readonly lostAfterMs: number | null = null,
  ) {}

  /** At start: the runs a previous run of the engine left pending are failures now (with replicas, failLost's). */
  async load(): Promise<void> {
    await this.failPendingSince(this.lostAfterMs === null ? null : this.now() - this.lostAfterMs);
  }

  /**
   * With replicas, the leader's housekeeping: the runs pending past lostAfterMs are failures now, whichever replica
   * started them (it stopped, or they would have ended).
   */
  async failLost(): Promise<void> {
    if (this.lostAfterMs !== null) await this.failPendingSince(this.now() - this.lostAfterMs);
  }

  private async failPendingSince(before: number | null): Promise<void> {
    const lostRun = failedRun('The engine stopped before the reactor finished: invoke it again');
    const bound = before === null ? null : new Date(before).toISOString();
    await this.units.run(() => failingLost(bound, (id) => this.sealer.sealJson(lostRun, binding(id))));
  }

  /** A new pending result; its id is the request id the client polls with. */
  async start(reactorId: string): Promise<string> {
    const id = randomUUID();
    const now = this.now();
    await this.units.run(() => tx.run(insert, [id, reactorId, new Date(now).toISOString(), new Date(now + RESULT_TTL_MS).toISOString()]));
    return id;
  }

  /**
   * Keeps the run's answer; null, or why the vault refused it. A refused run is remembered here, in memory, as a
   * failure saying so: its caller would otherwise be told `pending` until the next start.
   */
  async finish(reactorId: string, id: string, answer: ReactAnswer): Promise<string | null> {
    try {
      const sealed = this.sealer.sealJson(answer, binding(id));
      await this.units.run(() => tx.run(finished, [sealed, id]));
      return null;
    } catch (error) {
      this.unkept.set(id, { reactorId, expiresAt: this.now() + RESULT_TTL_MS });
      return (error as Error).message;
    }
  }

  /** The result of `reactorId`'s run `id`: pending, its answer, or undefined (unknown, expired, another reactor's). */
  async get(reactorId: string, id: string): Promise<'pending' | ReactAnswer | undefined> {
    const unkept = this.unkept.get(id);
    if (unkept && unkept.expiresAt > this.now()) return unkept.reactorId === reactorId ? failedRun("The engine could not keep the reactor's result: invoke it again") : undefined;
    const row = await this.units.read(() => tx.get(one, [id, new Date(this.now()).toISOString()]));
    if (!row || row.reactor_id !== reactorId) return undefined;
    return row.state === 'pending' ? 'pending' : this.sealer.openJson<ReactAnswer>(row.sealed!, binding(id));
  }

  /** Drops the results past their time (the engine's housekeeping). */
  async purgeExpired(): Promise<number> {
    for (const [id, { expiresAt }] of this.unkept) if (expiresAt <= this.now()) this.unkept.delete(id);
    return (await this.units.run(() => tx.run(purge, [new Date(this.now()).toISOString()]))).changes;
  }
}

/** A run that failed in the engine, not in its code, as the vendor's reactor error. */
function failedRun(message: string): ReactAnswer {
  const detail = 'Reactor Runtime Error';
  const errors = { error: [message] };
  return { status: 500, headers: {}, body: { title: 'One or more validation errors occurred.', status: 500, detail, errors } };
}
