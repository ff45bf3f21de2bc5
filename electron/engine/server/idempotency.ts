import type { Sealer } from '../storage/crypto';
import { type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';
import { ApiProblem } from './problem';
import type { JsonReply } from './route-types';

/** The vault's wipe: every kept answer goes, for it may hold token data of tokens that are gone. */
export const forgetAllAnswers = query('forget all kept answers', 'DELETE FROM idempotency_keys');

const RETENTION_MS = 24 * 60 * 60 * 1000;

interface Scope {
  applicationId: string;
  key: string;
  method: string;
  path: string;
}

interface StoredAnswer {
  method: string;
  path: string;
  status: number;
  sealed_response: Buffer;
}

const answers = {
  prune: query('forget old answers', 'DELETE FROM idempotency_keys WHERE created_at <= ?'),
  get: query<StoredAnswer>('kept answer', 'SELECT * FROM idempotency_keys WHERE application_id = ? AND key = ? AND created_at > ?'),
  put: query(
    'keep answer',
    `INSERT OR REPLACE INTO idempotency_keys
    (application_id, key, method, path, status, sealed_response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    {
      postgres: `INSERT INTO idempotency_keys (application_id, key, method, path, status, sealed_response, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (application_id, key) DO UPDATE SET method = EXCLUDED.method,
    path = EXCLUDED.path, status = EXCLUDED.status, sealed_response = EXCLUDED.sealed_response, created_at = EXCLUDED.created_at`,
    },
  ),
};

/** The idempotent request's first unit: the answer kept for the key, if any within the retention. */
function* keptAnswer(scope: Scope, since: string): Unit<StoredAnswer | undefined> {
  return yield* tx.get(answers.get, [scope.applicationId, scope.key, since]);
}

/** Its second, once the handler succeeded: the answer kept, sealed. */
function* keepAnswer(scope: Scope, status: number, sealed: Buffer, at: string): Unit<void> {
  yield* tx.run(answers.put, [scope.applicationId, scope.key, scope.method, scope.path, status, sealed, at]);
}

/**
 * PFX-IDEMPOTENCY-KEY: the first success for a key is kept for 24 h and replayed to repeats; a repeat while the first is
 * still running is a 409. Stored replies may hold revealed token data, so they are sealed like token data.
 */
export class IdempotencyStore {
  private readonly inFlight = new Set<string>();

  constructor(
    /** Any driver's: the kept answers are read and written only through units. */
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
  ) {}

  async run(
    scope: Scope,
    handler: () => Promise<JsonReply>,
  ): Promise<JsonReply & { replayed?: boolean }> {
    const id = `${scope.applicationId}\n${scope.key}`;
    this.refuseInFlight(id);
    const since = new Date(Date.now() - RETENTION_MS).toISOString();
    const stored = await this.units.read(() => keptAnswer(scope, since));
    if (stored) {
      if (stored.method !== scope.method || stored.path !== scope.path) {
        throw new ApiProblem(422, `The idempotency key was first used for ${stored.method} ${stored.path}`);
      }
      return { ...this.sealer.openJson<JsonReply>(stored.sealed_response, id), replayed: true };
    }
    // Again: a first request may have started while the lookup was awaited.
    this.refuseInFlight(id);
    this.inFlight.add(id);
    try {
      const reply = await handler();
      if (reply.status >= 200 && reply.status < 300) {
        const sealed = this.sealer.sealJson(reply, id);
        const at = new Date().toISOString();
        await this.units.run(() => keepAnswer(scope, reply.status, sealed, at));
      }
      return reply;
    } finally {
      this.inFlight.delete(id);
    }
  }

  private refuseInFlight(id: string): void {
    if (this.inFlight.has(id)) throw new ApiProblem(409, 'A request with this idempotency key is still in progress');
  }

  async prune(): Promise<void> {
    const before = new Date(Date.now() - RETENTION_MS).toISOString();
    await this.units.run(() => tx.run(answers.prune, [before]));
  }
}
