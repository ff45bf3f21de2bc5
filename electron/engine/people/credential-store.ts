import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import type { Db } from '../storage/database';

/** A person the workbench acts for: a named credential's holder. The owner (the per-run session) is none. */
export interface WorkbenchPerson {
  /** The credential's id. */
  id: string;
  name: string;
}

export interface CredentialInfo extends WorkbenchPerson {
  created_at: string;
  /** The last sign-in or request made with it, to the minute; null until first used. */
  last_used_at: string | null;
}

/** A credential's secret: 256 random bits, with a prefix that says what it is wherever it is pasted. */
const SECRET_PREFIX = 'tbw_';
/** How long a sign-in lasts: a working day, after which the person signs in again. */
export const SIGN_IN_LIFETIME_MS = 12 * 60 * 60_000;
/** `last_used_at` is written at most this often per credential, so a busy person's requests do not each write. */
const TOUCH_EVERY_MS = 60_000;
/** Names travel in a header (the identity header) and in History: plain ASCII, as a login name or an e-mail. */
const NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9 ._@+-]{0,62}[A-Za-z0-9._@+-])?$/;
export const NAME_RULE = 'a name is 1 to 64 characters: letters, digits, spaces and . _ @ + -, starting with a letter or digit and not ending with a space';

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

export function checkCredentialName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw new ApiProblem(400, `“${name}” cannot name a credential: ${NAME_RULE}`);
}

/**
 * The workbench's named credentials and the sessions signed in with them, in the vault's database. Nothing is cached
 * between calls: a credential created or revoked by another process on the same folder (`tokenbench credentials`
 * while `serve` runs) counts from the next request.
 */
export class CredentialStore {
  private readonly stmt: Record<'insert' | 'list' | 'byName' | 'bySecret' | 'remove' | 'touch' | 'openSession' | 'dropExpired' | 'ofSession', Statement>;
  private readonly touched = new Map<string, number>();

  constructor(db: Db) {
    this.stmt = {
      insert: db.prepare('INSERT INTO workbench_credentials (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)'),
      list: db.prepare('SELECT id, name, created_at, last_used_at FROM workbench_credentials ORDER BY created_at, name'),
      byName: db.prepare('SELECT id, name FROM workbench_credentials WHERE name = ?'),
      bySecret: db.prepare('SELECT id, name FROM workbench_credentials WHERE secret_hash = ?'),
      remove: db.prepare('DELETE FROM workbench_credentials WHERE name = ?'),
      touch: db.prepare('UPDATE workbench_credentials SET last_used_at = ? WHERE id = ?'),
      openSession: db.prepare('INSERT INTO workbench_sessions (hash, credential_id, expires_at) VALUES (?, ?, ?)'),
      dropExpired: db.prepare('DELETE FROM workbench_sessions WHERE expires_at <= ?'),
      ofSession: db.prepare(
        'SELECT c.id, c.name FROM workbench_sessions s JOIN workbench_credentials c ON c.id = s.credential_id WHERE s.hash = ? AND s.expires_at > ?',
      ),
    };
  }

  /** A new credential: its secret is in this answer only; the store keeps its hash. */
  create(name: string): { credential: CredentialInfo; secret: string } {
    checkCredentialName(name);
    if (this.stmt.byName.get(name)) throw new ApiProblem(409, `A credential named “${name}” exists already: pick another name, or revoke that one first`);
    const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
    const credential: CredentialInfo = { id: randomUUID(), name, created_at: nowIso(), last_used_at: null };
    this.stmt.insert.run(credential.id, name, hashOf(secret), credential.created_at);
    return { credential, secret };
  }

  list(): CredentialInfo[] {
    return this.stmt.list.all() as CredentialInfo[];
  }

  /** Deletes the credential and, with it, every session it signed in; false when none has that name. */
  revoke(name: string): boolean {
    return this.stmt.remove.run(name).changes > 0;
  }

  /** A new session for the holder of `secret`, or null when no credential has it (never made, revoked, mistyped). */
  signIn(secret: string): { session: string; person: WorkbenchPerson } | null {
    const person = this.stmt.bySecret.get(hashOf(secret.trim())) as WorkbenchPerson | undefined;
    if (!person) return null;
    const session = randomBytes(32).toString('base64url');
    this.stmt.dropExpired.run(nowIso());
    this.stmt.openSession.run(hashOf(session), person.id, new Date(Date.now() + SIGN_IN_LIFETIME_MS).toISOString());
    this.touch(person.id);
    return { session, person };
  }

  /** Who a session belongs to, read afresh: null once it expired or its credential was revoked. */
  personOfSession(session: string): WorkbenchPerson | null {
    const person = this.stmt.ofSession.get(hashOf(session), nowIso()) as WorkbenchPerson | undefined;
    if (person) this.touch(person.id);
    return person ?? null;
  }

  /** The person a credential of that name belongs to (the identity header's name), or null. */
  personNamed(name: string): WorkbenchPerson | null {
    const person = this.stmt.byName.get(name) as WorkbenchPerson | undefined;
    if (person) this.touch(person.id);
    return person ?? null;
  }

  private touch(id: string): void {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    this.stmt.touch.run(nowIso(), id);
  }
}
