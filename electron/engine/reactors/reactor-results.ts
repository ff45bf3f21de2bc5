/**
 * What asynchronous reacts answered (migration 18), kept 24 hours (vendor-surfaces.md §3.5) and sealed, since what
 * code returns may repeat detokenized data. A run still pending when the engine starts was lost with the process that
 * ran it: it becomes a failure saying so, which is what its caller can act on.
 */
import { randomUUID } from 'node:crypto';
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
const purge = query('purge reactor results', 'DELETE FROM reactor_results WHERE expires_at <= ?');

/** Every run left pending by the process that ran it becomes the failure `lost` says, sealed for its own row. */
function* failingLost(seal: (id: string) => Buffer): Unit<void> {
  for (const id of yield* tx.all(pendingIds)) yield* tx.run(finished, [seal(id), id]);
}

export class ReactorResults {
  /** Runs whose answer the vault refused to keep, by id, until their time is up. */
  private readonly unkept = new Map<string, { reactorId: string; expiresAt: number }>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    private readonly now: () => number = Date.now,
  ) {}

  /** At start: the runs a previous run of the engine left pending are failures now. */
  async load(): Promise<void> {
    const lostRun = failedRun('The engine stopped before the reactor finished: invoke it again');
    await this.units.run(() => failingLost((id) => this.sealer.sealJson(lostRun, binding(id))));
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
