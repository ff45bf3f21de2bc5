import type { EventCause, EventOutbox } from '../events/event-outbox';
import { randomBytes, randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import type { Sealer } from '../storage/crypto';
import type { Db } from '../storage/database';
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

/**
 * Sessions (docs/api.md, Sessions): a short-lived credential a public application makes for itself, which can do
 * nothing until a private application authorizes it by its one-time nonce. Key and nonce are kept as keyed hashes only;
 * an expired session is gone, purged on a schedule and on access. Deleting its application deletes it.
 */
export class SessionStore {
  /** Bumped when a session's access changes, so cached callers are dropped. */
  version = 0;
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    /** Where making and authorizing a session raise their events (never with its key or nonce). */
    private readonly outbox: EventOutbox,
  ) {
    this.stmt = {
      insert: db.prepare(`INSERT INTO sessions (id, application_id, key_hash, nonce_hash, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, ?)`),
      byKey: db.prepare('SELECT * FROM sessions WHERE key_hash = ? AND expires_at > ?'),
      byNonce: db.prepare('SELECT * FROM sessions WHERE nonce_hash = ? AND expires_at > ?'),
      authorize: db.prepare(`UPDATE sessions SET permissions = @permissions, rules = @rules, authorized_by = @by,
        authorized_at = @at, expires_at = @expires_at WHERE id = @id AND authorized_at IS NULL`),
      purge: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
      live: db.prepare('SELECT * FROM sessions WHERE expires_at > ? ORDER BY created_at, id'),
      revoke: db.prepare('DELETE FROM sessions WHERE id = ? AND expires_at > ?'),
    };
  }

  create(applicationId: string, cause: EventCause): NewSession {
    const id = randomUUID();
    const sessionKey = `key_local_sess_${randomBytes(32).toString('base64url')}`;
    const nonce = randomBytes(16).toString('base64url');
    const now = Date.now();
    const expiresAt = new Date(now + SESSION_LIFE_MS).toISOString();
    const createdAt = new Date(now).toISOString();
    this.db.transaction(() => {
      this.stmt.insert.run(id, applicationId, this.sealer.hashApiKey(sessionKey), this.sealer.hashApiKey(nonce), createdAt, expiresAt);
      const session = { id, application_id: applicationId, created_at: createdAt, expires_at: expiresAt };
      this.outbox.raise({ type: 'session.created', data: () => ({ session }), ...cause });
    })();
    return { id, session_key: sessionKey, nonce, expires_at: expiresAt };
  }

  /** The live session a key belongs to, or undefined (never made, or expired). */
  findByKey(key: string): SessionGrant | undefined {
    const row = this.stmt.byKey.get(this.sealer.hashApiKey(key), nowIso()) as SessionRow | undefined;
    return row && grantOf(row);
  }

  /**
   * Grants a live session what `authorization` says, once: an unknown or expired nonce is a 404, one already authorized
   * a 409, as the node SDK's error list for authorize has them.
   */
  authorize(nonce: string, authorization: Authorization, authorizedBy: string, cause: EventCause): SessionGrant {
    const row = this.stmt.byNonce.get(this.sealer.hashApiKey(nonce), nowIso()) as SessionRow | undefined;
    if (!row) throw new ApiProblem(404, 'No session has this nonce: it was never made, or has expired');
    const granted = {
      id: row.id,
      permissions: JSON.stringify(authorization.permissions),
      rules: JSON.stringify(authorization.rules),
      by: authorizedBy,
      at: nowIso(),
      expires_at: authorization.expires_at ?? row.expires_at,
    };
    this.db.transaction(() => {
      if (this.stmt.authorize.run(granted).changes === 0) throw new ApiProblem(409, `Session ${row.id} is already authorized: a nonce authorizes once`);
      const session = { id: row.id, application_id: row.application_id, authorized_by: authorizedBy, authorized_at: granted.at, expires_at: granted.expires_at };
      this.outbox.raise({ type: 'session.authorized', data: () => ({ session }), ...cause });
    })();
    this.version++;
    return { ...grantOf(row), permissions: authorization.permissions, rules: authorization.rules, expires_at: granted.expires_at };
  }

  /** The live sessions, oldest first. */
  list(): SessionDetail[] {
    return (this.stmt.live.all(nowIso()) as SessionRow[]).map((row) => ({ ...grantOf(row), authorized_by: row.authorized_by, created_at: row.created_at }));
  }

  /**
   * Ends a live session at once: its key is unknown from the next request (the vendor has no such route; the
   * workbench's user may). A 404 when there is no live session by that id.
   */
  revoke(id: string): void {
    if (this.stmt.revoke.run(id, nowIso()).changes === 0) throw new ApiProblem(404, `No live session ${id}: it has expired or was revoked`);
    this.version++;
  }

  /** Deletes the sessions past their expiry; findByKey already treats them as gone. */
  purgeExpired(): number {
    return this.stmt.purge.run(nowIso()).changes;
  }
}
