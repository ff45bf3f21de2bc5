import type { Sealer } from '../storage/crypto';
import { type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';
import { ApiProblem } from './problem';
import type { JsonReply } from './route-types';

/** The vault's wipe: every kept answer goes, for it may hold token data of tokens that are gone. */
export const forgetAllAnswers = query('forget all kept answers', 'DELETE FROM idempotency_keys');

const RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim on a key stands while its request runs: past the server's request timeout, so only a claim whose
 * process stopped mid-request (its answer never kept, its claim never given back) is ever taken over.
 */
const CLAIM_MS = 5 * 60 * 1000;
/** A claimed key's row until its answer is kept: status 0, no response. */
const CLAIMED = 0;
const NO_RESPONSE = Buffer.alloc(0);

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
  created_at: string;
}

const answers = {
  prune: query('forget old answers', 'DELETE FROM idempotency_keys WHERE created_at <= ?'),
  claim: query(
    'claim idempotency key',
    `INSERT INTO idempotency_keys (application_id, key, method, path, status, sealed_response, created_at)
    VALUES (@applicationId, @key, @method, @path, ${CLAIMED}, @none, @at) ON CONFLICT (application_id, key) DO NOTHING`,
  ),
  get: query<StoredAnswer>('kept answer', 'SELECT * FROM idempotency_keys WHERE application_id = ? AND key = ?'),
  // Only the row as it was read: of two requests taking over one key, the second changes nothing.
  takeOver: query(
    'take over idempotency key',
    `UPDATE idempotency_keys SET method = @method, path = @path, status = ${CLAIMED}, sealed_response = @none, created_at = @at
    WHERE application_id = @applicationId AND key = @key AND status = @status AND created_at = @seen`,
  ),
  keep: query(
    'keep answer',
    `UPDATE idempotency_keys SET status = @status, sealed_response = @sealed, created_at = @keptAt
    WHERE application_id = @applicationId AND key = @key AND status = ${CLAIMED} AND created_at = @at`,
  ),
  giveBack: query('give back idempotency key', `DELETE FROM idempotency_keys WHERE application_id = @applicationId AND key = @key AND status = ${CLAIMED} AND created_at = @at`),
};

/** Where a claim was made: the key and the time that names the claim, so only its own request ends it. */
type Claim = Scope & { at: string };

/**
 * The idempotent request's first unit: the key claimed for this request (undefined), or what holds it, an answer kept
 * or another request's claim. The claim is a row every replica sees, so one key sent to several at once runs once.
 */
function* claimKey(claim: Claim, now: number): Unit<StoredAnswer | undefined> {
  const row = { ...claim, none: NO_RESPONSE };
  if ((yield* tx.run(answers.claim, row)).changes === 1) return undefined;
  const held = yield* tx.get(answers.get, [claim.applicationId, claim.key]);
  if (!held) return yield* claimKey(claim, now);
  const stale = held.status === CLAIMED ? CLAIM_MS : RETENTION_MS;
  if (Date.parse(held.created_at) > now - stale) return held;
  const taken = yield* tx.run(answers.takeOver, { ...row, status: held.status, seen: held.created_at });
  return taken.changes === 1 ? undefined : { ...held, status: CLAIMED };
}

/**
 * PFX-IDEMPOTENCY-KEY: the first success for a key is kept for 24 h and replayed to repeats; a repeat while the first is
 * still running, on any replica, is a 409. Stored replies may hold revealed token data, so they are sealed like token data.
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
    const now = Date.now();
    const claim: Claim = { ...scope, at: new Date(now).toISOString() };
    const held = await this.units.run(() => claimKey(claim, now));
    if (held) {
      if (held.status === CLAIMED) throw new ApiProblem(409, 'A request with this idempotency key is still in progress');
      if (held.method !== scope.method || held.path !== scope.path) {
        throw new ApiProblem(422, `The idempotency key was first used for ${held.method} ${held.path}`);
      }
      return { ...this.sealer.openJson<JsonReply>(held.sealed_response, id), replayed: true };
    }
    let reply: JsonReply;
    try {
      reply = await handler();
    } catch (error) {
      await this.units.run(() => tx.run(answers.giveBack, claim));
      throw error;
    }
    if (reply.status >= 200 && reply.status < 300) {
      const sealed = this.sealer.sealJson(reply, id);
      const keptAt = new Date().toISOString();
      await this.units.run(() => tx.run(answers.keep, { ...claim, status: reply.status, sealed, keptAt }));
    } else {
      await this.units.run(() => tx.run(answers.giveBack, claim));
    }
    return reply;
  }

  async prune(): Promise<void> {
    const before = new Date(Date.now() - RETENTION_MS).toISOString();
    await this.units.run(() => tx.run(answers.prune, [before]));
  }
}
