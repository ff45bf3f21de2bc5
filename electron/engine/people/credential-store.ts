import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import { type AnyUnitRunner, isDuplicateKey, query, tx } from '../storage/unit';

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

const q = {
  insert: query('insert credential', 'INSERT INTO workbench_credentials (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)'),
  list: query<CredentialInfo>('list credentials', 'SELECT id, name, created_at, last_used_at FROM workbench_credentials ORDER BY created_at, name'),
  byName: query<WorkbenchPerson>('credential by name', 'SELECT id, name FROM workbench_credentials WHERE name = ?'),
  bySecret: query<WorkbenchPerson>('credential by secret', 'SELECT id, name FROM workbench_credentials WHERE secret_hash = ?'),
  remove: query('delete credential', 'DELETE FROM workbench_credentials WHERE name = ?'),
  touch: query('touch credential', 'UPDATE workbench_credentials SET last_used_at = ? WHERE id = ?'),
  openSession: query('open workbench session', 'INSERT INTO workbench_sessions (hash, credential_id, expires_at) VALUES (?, ?, ?)'),
  dropExpired: query('drop expired workbench sessions', 'DELETE FROM workbench_sessions WHERE expires_at <= ?'),
  ofSession: query<WorkbenchPerson>(
    'person of workbench session',
    'SELECT c.id, c.name FROM workbench_sessions s JOIN workbench_credentials c ON c.id = s.credential_id WHERE s.hash = ? AND s.expires_at > ?',
  ),
};

/**
 * The workbench's named credentials and the sessions signed in with them, in the vault's database. Nothing is cached
 * between calls: a credential created or revoked by another process on the same database (`tokenbench credentials`
 * while `serve` runs) counts from the next request.
 */
export class CredentialStore {
  private readonly touched = new Map<string, number>();

  constructor(private readonly units: AnyUnitRunner) {}

  /** A new credential: its secret is in this answer only; the store keeps its hash. */
  async create(name: string): Promise<{ credential: CredentialInfo; secret: string }> {
    checkCredentialName(name);
    const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
    const credential: CredentialInfo = { id: randomUUID(), name, created_at: nowIso(), last_used_at: null };
    const taken = new ApiProblem(409, `A credential named “${name}” exists already: pick another name, or revoke that one first`);
    try {
      await this.units.run(function* () {
        if (yield* tx.get(q.byName, [name])) throw taken;
        yield* tx.run(q.insert, [credential.id, name, hashOf(secret), credential.created_at]);
      });
    } catch (error) {
      // Another replica's create of the name committed after this one read it free: its unique name refuses this one.
      throw isDuplicateKey(error) ? taken : error;
    }
    return { credential, secret };
  }

  async list(): Promise<CredentialInfo[]> {
    return this.units.read(() => tx.all(q.list));
  }

  /** Deletes the credential and, with it, every session it signed in; false when none has that name. */
  async revoke(name: string): Promise<boolean> {
    return (await this.units.run(() => tx.run(q.remove, [name]))).changes > 0;
  }

  /** A new session for the holder of `secret`, or null when no credential has it (never made, revoked, mistyped). */
  async signIn(secret: string): Promise<{ session: string; person: WorkbenchPerson } | null> {
    const session = randomBytes(32).toString('base64url');
    const person = await this.units.run(function* () {
      const person = yield* tx.get(q.bySecret, [hashOf(secret.trim())]);
      if (!person) return undefined;
      yield* tx.run(q.dropExpired, [nowIso()]);
      yield* tx.run(q.openSession, [hashOf(session), person.id, new Date(Date.now() + SIGN_IN_LIFETIME_MS).toISOString()]);
      return person;
    });
    if (!person) return null;
    await this.touch(person.id);
    return { session, person };
  }

  /** Who a session belongs to, read afresh: null once it expired or its credential was revoked. */
  async personOfSession(session: string): Promise<WorkbenchPerson | null> {
    return this.used(await this.units.read(() => tx.get(q.ofSession, [hashOf(session), nowIso()])));
  }

  /** The person a credential of that name belongs to (the identity header's name), or null. */
  async personNamed(name: string): Promise<WorkbenchPerson | null> {
    return this.used(await this.units.read(() => tx.get(q.byName, [name])));
  }

  private async used(person: WorkbenchPerson | undefined): Promise<WorkbenchPerson | null> {
    if (!person) return null;
    await this.touch(person.id);
    return person;
  }

  private async touch(id: string): Promise<void> {
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(id, now);
    await this.units.run(() => tx.run(q.touch, [nowIso(), id]));
  }
}
