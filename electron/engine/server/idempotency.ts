import type { Db } from '../storage/database';
import type { Sealer } from '../storage/crypto';
import { ApiProblem } from './problem';
import type { JsonReply } from './route-types';

const RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * PFX-IDEMPOTENCY-KEY: the first success for a key is kept for 24 h and replayed to repeats; a repeat while the first is
 * still running is a 409. Stored replies may hold revealed token data, so they are sealed like token data.
 */
export class IdempotencyStore {
  private readonly inFlight = new Set<string>();
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
  ) {
    this.stmt = {
      get: db.prepare('SELECT * FROM idempotency_keys WHERE application_id = ? AND key = ? AND created_at > ?'),
      put: db.prepare(`INSERT OR REPLACE INTO idempotency_keys
        (application_id, key, method, path, status, sealed_response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      prune: db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?'),
    };
  }

  /** Forgets every kept answer (a wipe): they may hold token data of tokens that are gone. */
  clear(): void {
    this.db.prepare('DELETE FROM idempotency_keys').run();
  }

  async run(
    scope: { applicationId: string; key: string; method: string; path: string },
    handler: () => Promise<JsonReply>,
  ): Promise<JsonReply & { replayed?: boolean }> {
    const id = `${scope.applicationId}\n${scope.key}`;
    if (this.inFlight.has(id)) throw new ApiProblem(409, 'A request with this idempotency key is still in progress');
    const since = new Date(Date.now() - RETENTION_MS).toISOString();
    const stored = this.stmt.get.get(scope.applicationId, scope.key, since) as
      | { method: string; path: string; status: number; sealed_response: Buffer }
      | undefined;
    if (stored) {
      if (stored.method !== scope.method || stored.path !== scope.path) {
        throw new ApiProblem(422, `The idempotency key was first used for ${stored.method} ${stored.path}`);
      }
      return { ...this.sealer.openJson<JsonReply>(stored.sealed_response, id), replayed: true };
    }
    this.inFlight.add(id);
    try {
      const reply = await handler();
      if (reply.status >= 200 && reply.status < 300) {
        this.stmt.put.run(
          scope.applicationId,
          scope.key,
          scope.method,
          scope.path,
          reply.status,
          this.sealer.sealJson(reply, id),
          new Date().toISOString(),
        );
      }
      return reply;
    } finally {
      this.inFlight.delete(id);
    }
  }

  prune(): void {
    this.stmt.prune.run(new Date(Date.now() - RETENTION_MS).toISOString());
  }
}
