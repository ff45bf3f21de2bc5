/**
 * What asynchronous reacts answered (migration 18), kept 24 hours (vendor-surfaces.md §3.5) and sealed, since what
 * code returns may repeat detokenized data. A run still pending when the engine starts was lost with the process that
 * ran it: it becomes a failure saying so, which is what its caller can act on.
 */
import { randomUUID } from 'node:crypto';
import type { Sealer } from '../storage/crypto';
import type { Db } from '../storage/database';

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

export class ReactorResults {
  private readonly stmt;

  constructor(
    db: Db,
    private readonly sealer: Sealer,
    private readonly now: () => number = Date.now,
  ) {
    this.stmt = {
      insert: db.prepare("INSERT INTO reactor_results (id, reactor_id, state, created_at, expires_at) VALUES (?, ?, 'pending', ?, ?)"),
      finish: db.prepare("UPDATE reactor_results SET state = 'done', sealed = ? WHERE id = ?"),
      get: db.prepare('SELECT reactor_id, state, sealed FROM reactor_results WHERE id = ? AND expires_at > ?'),
      lost: db.prepare("SELECT id FROM reactor_results WHERE state = 'pending'"),
      purge: db.prepare('DELETE FROM reactor_results WHERE expires_at <= ?'),
    };
    const lost = this.stmt.lost.all() as { id: string }[];
    for (const { id } of lost) this.finish(id, lostRun());
  }

  /** A new pending result; its id is the request id the client polls with. */
  start(reactorId: string): string {
    const id = randomUUID();
    const now = this.now();
    this.stmt.insert.run(id, reactorId, new Date(now).toISOString(), new Date(now + RESULT_TTL_MS).toISOString());
    return id;
  }

  finish(id: string, answer: ReactAnswer): void {
    this.stmt.finish.run(this.sealer.sealJson(answer, binding(id)), id);
  }

  /** The result of `reactorId`'s run `id`: pending, its answer, or undefined (unknown, expired, another reactor's). */
  get(reactorId: string, id: string): 'pending' | ReactAnswer | undefined {
    const row = this.stmt.get.get(id, new Date(this.now()).toISOString()) as ResultRow | undefined;
    if (!row || row.reactor_id !== reactorId) return undefined;
    return row.state === 'pending' ? 'pending' : this.sealer.openJson<ReactAnswer>(row.sealed!, binding(id));
  }

  /** Drops the results past their time (the engine's housekeeping). */
  purgeExpired(): number {
    return this.stmt.purge.run(new Date(this.now()).toISOString()).changes;
  }
}

function lostRun(): ReactAnswer {
  const detail = 'Reactor Runtime Error';
  const errors = { error: ['The engine stopped before the reactor finished: invoke it again'] };
  return { status: 500, headers: {}, body: { title: 'One or more validation errors occurred.', status: 500, detail, errors } };
}
