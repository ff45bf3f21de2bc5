import type { Sealer } from '../storage/crypto';
import { type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';
import { ApiProblem } from './problem';
import type { JsonReply } from './route-types';

/** The vault's wipe: every kept answer goes, for it may hold token data of tokens that are gone. */
export const forgetAllAnswers = query('forget all kept answers', 'DELETE FROM idempotency_keys');

const RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim stands without its answer: past it, the replica that claimed the key is taken to have died
 * mid-request (a crash, kill -9), and a repeat may run instead of being refused until the claim is pruned.
 */
const CLAIM_LEASE_MS = 5 * 60 * 1000;
/** The status of a claimed key whose first request is still running: no answer is kept yet. */
const RUNNING = 0;
const NO_ANSWER = Buffer.alloc(0);

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
  get: query<StoredAnswer>('kept answer', 'SELECT * FROM idempotency_keys WHERE application_id = ? AND key = ?'),
  // A key is taken by inserting its row, so that of racing first requests, on any replica, one inserts and the others
  // find its row; a row past the retention, or a claim past its lease, is taken over.
  claim: query(
    'claim key',
    `INSERT INTO idempotency_keys (application_id, key, method, path, status, sealed_response, created_at)
    VALUES (@application_id, @key, @method, @path, ${RUNNING}, @no_answer, @at)
    ON CONFLICT (application_id, key) DO UPDATE SET method = excluded.method, path = excluded.path, status = excluded.status,
    sealed_response = excluded.sealed_response, created_at = excluded.created_at
    WHERE idempotency_keys.created_at <= @expired OR (idempotency_keys.status = ${RUNNING} AND idempotency_keys.created_at <= @abandoned)`,
  ),
  keep: query(
    'keep answer',
    `UPDATE idempotency_keys SET status = ?, sealed_response = ? WHERE application_id = ? AND key = ? AND created_at = ? AND status = ${RUNNING}`,
  ),
  release: query('release claim', `DELETE FROM idempotency_keys WHERE application_id = ? AND key = ? AND created_at = ? AND status = ${RUNNING}`),
};

/**
 * The idempotent request's first unit: claims the key for this request, or answers the row that holds it (a kept
 * answer, or another request's claim) without claiming.
 */
function* claimKey(scope: Scope, at: number): Unit<StoredAnswer | undefined> {
  const { changes } = yield* tx.run(answers.claim, {
    application_id: scope.applicationId,
    key: scope.key,
    method: scope.method,
    path: scope.path,
    no_answer: NO_ANSWER,
    at: new Date(at).toISOString(),
    expired: new Date(at - RETENTION_MS).toISOString(),
    abandoned: new Date(at - CLAIM_LEASE_MS).toISOString(),
  });
  if (changes === 1) return undefined;
  return yield* tx.get(answers.get, [scope.applicationId, scope.key]);
}

/**
 * PFX-IDEMPOTENCY-KEY: the first success for a key is kept for 24 h and replayed to repeats; a repeat while the first is
 * still running is a 409, whichever replica either reached, since the key is claimed in the database before the first
 * runs. Stored replies may hold revealed token data, so they are sealed like token data.
 */
export class IdempotencyStore {
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
    const claimedAt = Date.now();
    const held = await this.units.run(() => claimKey(scope, claimedAt));
    if (held) {
      if (held.status === RUNNING) throw new ApiProblem(409, 'A request with this idempotency key is still in progress');
      if (held.method !== scope.method || held.path !== scope.path) {
        throw new ApiProblem(422, `The idempotency key was first used for ${held.method} ${held.path}`);
      }
      return { ...this.sealer.openJson<JsonReply>(held.sealed_response, id), replayed: true };
    }
    // The claim is this request's by its time: one taken over after its lease is another's to keep or release.
    const mine = [scope.applicationId, scope.key, new Date(claimedAt).toISOString()];
    let kept = false;
    try {
      const reply = await handler();
      if (reply.status >= 200 && reply.status < 300) {
        const sealed = this.sealer.sealJson(reply, id);
        await this.units.run(() => tx.run(answers.keep, [reply.status, sealed, ...mine]));
        kept = true;
      }
      return reply;
    } finally {
      // Failed requests are not kept, so a retry runs again. A release that fails leaves the claim to its lease, and
      // the request's own answer (its error) stands.
      if (!kept) {
        try {
          await this.units.run(() => tx.run(answers.release, mine));
        } catch {
          // Left to the lease.
        }
      }
    }
  }

  async prune(): Promise<void> {
    const before = new Date(Date.now() - RETENTION_MS).toISOString();
    await this.units.run(() => tx.run(answers.prune, [before]));
  }
}
