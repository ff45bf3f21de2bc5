import type { EventCause, EventOutbox } from '../events/event-outbox';
import { randomBytes, randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import { keepRowsCoherent } from '../storage/coherent-memory';
import type { Sealer } from '../storage/crypto';
import { type AnyUnitRunner, query, tx } from '../storage/unit';
import type { AccessRule } from './permissions';

/** The vendor's default: a session lives three minutes from its creation unless its authorization says otherwise. */
export const SESSION_LIFE_MS = 3 * 60 * 1000;

/** POST /sessions: the session's key and nonce, each shown this once. */
export interface NewSession {
  id: string;
  session_key: string;
  nonce: string;
  expires_at: string;
}

/** A live session as its key finds it: the public application it belongs to and what it was granted (null: nothing yet). */
export interface SessionGrant {
  id: string;
  application_id: string;
  permissions: string[] | null;
  rules: AccessRule[] | null;
  expires_at: string;
}

export interface Authorization {
  permissions: string[];
  rules: AccessRule[];
  /** null: the session keeps the expiry it was created with. */
  expires_at: string | null;
}

interface SessionRow {
  id: string;
  application_id: string;
  key_hash: string;
  permissions: string | null;
  rules: string | null;
  authorized_by: string | null;
  authorized_at: string | null;
  created_at: string;
  expires_at: string;
}

/** A live session as the workbench lists it. */
export interface SessionDetail extends SessionGrant {
  authorized_by: string | null;
  created_at: string;
}

const grantOf = (row: SessionRow): SessionGrant => ({
  id: row.id,
  application_id: row.application_id,
  permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as string[]),
  rules: row.rules === null ? null : (JSON.parse(row.rules) as AccessRule[]),
  expires_at: row.expires_at,
});

/** The change feed's channel of the session units, naming the session changed. */
const CHANNEL = 'sessions';

const q = {
  insert: query('insert session', `INSERT INTO sessions (id, application_id, key_hash, nonce_hash, created_at, expires_at)
    VALUES (?, ?, ?, ?, ?, ?)`),
  byId: query<SessionRow>('session by id', 'SELECT * FROM sessions WHERE id = ?'),
  byNonce: query<SessionRow>('live session by nonce', 'SELECT * FROM sessions WHERE nonce_hash = ? AND expires_at > ?'),
  authorize: query('authorize session', `UPDATE sessions SET permissions = @permissions, rules = @rules, authorized_by = @by,
    authorized_at = @at, expires_at = @expires_at WHERE id = @id AND authorized_at IS NULL`),
  purge: query<string>('purge expired sessions', 'DELETE FROM sessions WHERE expires_at <= ? RETURNING id', { pluck: true }),
  live: query<SessionRow>('live sessions', 'SELECT * FROM sessions WHERE expires_at > ? ORDER BY created_at, id'),
  revoke: query('revoke session', 'DELETE FROM sessions WHERE id = ? AND expires_at > ?'),
};

/**
 * Sessions (docs/api.md, Sessions): a short-lived credential a public application makes for itself, which can do
 * nothing until a private application authorizes it by its one-time nonce. Key and nonce are kept as keyed hashes only;
 * an expired session is gone, purged on a schedule and on access. Deleting its application deletes it. The live
 * sessions are held in memory as well: the authenticator resolves a session's key on a request's path, without waiting.
 */
export class SessionStore {
  /** Bumped when a session's access changes, so cached callers are dropped. */
  version = 0;
  /** The live sessions by id, and their ids by key hash. */
  private readonly held = new Map<string, SessionRow>();
  private readonly byHash = new Map<string, string>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    /** Where making and authorizing a session raise their events (never with its key or nonce). */
    private readonly outbox: EventOutbox,
  ) {
    keepRowsCoherent(units, CHANNEL, q.byId, (id, row) => this.settle(id, row && row.expires_at > nowIso() ? row : undefined), () => this.load());
  }

  /** Reads the live sessions into memory: once at start, before any request; again when notices were lost. */
  async load(): Promise<void> {
    this.held.clear();
    this.byHash.clear();
    for (const row of await this.units.read(() => tx.all(q.live, [nowIso()]))) this.settle(row.id, row);
  }

  /** The one place memory changes: the session `id` as the database now holds it (undefined once gone). */
  private settle(id: string, row: SessionRow | undefined): void {
    const before = this.held.get(id);
    if (before) this.byHash.delete(before.key_hash);
    if (row) {
      this.held.set(id, row);
      this.byHash.set(row.key_hash, id);
    } else {
      this.held.delete(id);
    }
    this.version++;
  }

  async create(applicationId: string, cause: EventCause): Promise<NewSession> {
    const id = randomUUID();
    const sessionKey = `key_local_sess_${randomBytes(32).toString('base64url')}`;
    const nonce = randomBytes(16).toString('base64url');
    const now = Date.now();
    const expiresAt = new Date(now + SESSION_LIFE_MS).toISOString();
    const createdAt = new Date(now).toISOString();
    const hashes = [this.sealer.hashApiKey(sessionKey), this.sealer.hashApiKey(nonce)];
    const { outbox } = this;
    const row = await this.units.run(function* () {
      yield* tx.run(q.insert, [id, applicationId, ...hashes, createdAt, expiresAt]);
      const session = { id, application_id: applicationId, created_at: createdAt, expires_at: expiresAt };
      yield* outbox.store({ type: 'session.created', data: () => ({ session }), ...cause });
      yield* tx.notify(CHANNEL, id);
      return yield* tx.get(q.byId, [id]);
    });
    this.committed(id, row);
    return { id, session_key: sessionKey, nonce, expires_at: expiresAt };
  }

  /** After a unit changing the session `id` has committed, with the session as it read it then. */
  private committed(id: string, row: SessionRow | undefined): void {
    this.settle(id, row);
    this.outbox.committed();
  }

  /** The live session a key belongs to, or undefined (never made, or expired). */
  findByKey(key: string): SessionGrant | undefined {
    const id = this.byHash.get(this.sealer.hashApiKey(key));
    const row = id === undefined ? undefined : this.held.get(id);
    return row && row.expires_at > nowIso() ? grantOf(row) : undefined;
  }

  /**
   * Grants a live session what `authorization` says, once: an unknown or expired nonce is a 404, one already authorized
   * a 409, as the node SDK's error list for authorize has them.
   */
  async authorize(nonce: string, authorization: Authorization, authorizedBy: string, cause: EventCause): Promise<SessionGrant> {
    const nonceHash = this.sealer.hashApiKey(nonce);
    const { outbox } = this;
    const row = await this.units.run(function* () {
      const row = yield* tx.get(q.byNonce, [nonceHash, nowIso()]);
      if (!row) throw new ApiProblem(404, 'No session has this nonce: it was never made, or has expired');
      const granted = {
        id: row.id,
        permissions: JSON.stringify(authorization.permissions),
        rules: JSON.stringify(authorization.rules),
        by: authorizedBy,
        at: nowIso(),
        expires_at: authorization.expires_at ?? row.expires_at,
      };
      if ((yield* tx.run(q.authorize, granted)).changes === 0) throw new ApiProblem(409, `Session ${row.id} is already authorized: a nonce authorizes once`);
      const session = { id: row.id, application_id: row.application_id, authorized_by: authorizedBy, authorized_at: granted.at, expires_at: granted.expires_at };
      yield* outbox.store({ type: 'session.authorized', data: () => ({ session }), ...cause });
      yield* tx.notify(CHANNEL, row.id);
      return (yield* tx.get(q.byId, [row.id]))!;
    });
    this.committed(row.id, row);
    return grantOf(row);
  }

  /** The live sessions, oldest first. */
  async list(): Promise<SessionDetail[]> {
    const rows = await this.units.read(() => tx.all(q.live, [nowIso()]));
    return rows.map((row) => ({ ...grantOf(row), authorized_by: row.authorized_by, created_at: row.created_at }));
  }

  /** The application a live session belongs to, from memory (History names it when the session is revoked). */
  applicationOf(id: string): string | undefined {
    const row = this.held.get(id);
    return row && row.expires_at > nowIso() ? row.application_id : undefined;
  }

  /**
   * Ends a live session at once: its key is unknown from the next request (the vendor has no such route; the
   * workbench's user may). A 404 when there is no live session by that id.
   */
  async revoke(id: string): Promise<void> {
    const { changes } = await this.units.run(function* () {
      const revoked = yield* tx.run(q.revoke, [id, nowIso()]);
      if (revoked.changes > 0) yield* tx.notify(CHANNEL, id);
      return revoked;
    });
    if (changes === 0) throw new ApiProblem(404, `No live session ${id}: it has expired or was revoked`);
    this.settle(id, undefined);
  }

  /** Deletes the sessions past their expiry; findByKey already treats them as gone. */
  async purgeExpired(): Promise<number> {
    const ids = await this.units.run(function* () {
      const purged = yield* tx.all(q.purge, [nowIso()]);
      for (const id of purged) yield* tx.notify(CHANNEL, id);
      return purged;
    });
    for (const id of ids) this.settle(id, undefined);
    return ids.length;
  }
}
