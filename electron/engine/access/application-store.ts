import { randomBytes, randomUUID } from 'node:crypto';
import type { EventCause, EventOutbox, RaisedEvent } from '../events/event-outbox';
import type { Db } from '../storage/database';
import type { Sealer } from '../storage/crypto';
import { unitsOf } from '../storage/sqlite/unit-driver';
import { query, tx, type Unit, type UnitRunner } from '../storage/unit';
import { ApiProblem } from '../server/problem';
import type { AccessRule, ApplicationType } from './permissions';

/** The vault's wipe: every application goes, its keys with it (ApplicationStore.forgetAll once committed). */
export const deleteAllApplications = query('delete all applications', 'DELETE FROM applications');

export interface ApiKeyInfo {
  id: string;
  created_by: string | null;
  created_at: string;
}

export interface Application {
  id: string;
  tenant_id: string;
  name: string;
  type: ApplicationType;
  permissions: string[];
  rules: AccessRule[];
  keys: ApiKeyInfo[];
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

export interface ApplicationInput {
  name: string;
  type: ApplicationType;
  permissions: string[];
  rules: AccessRule[];
}

/** A key with its secret: returned once, at creation. */
export interface NewApiKey extends ApiKeyInfo {
  key: string;
}

interface ApplicationRow {
  id: string;
  tenant_id: string;
  name: string;
  type: ApplicationType;
  permissions: string;
  rules: string;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

const creates = {
  insert: query('insert application', `INSERT INTO applications (id, tenant_id, name, type, permissions, rules, created_by, created_at)
    VALUES (@id, @tenant_id, @name, @type, @permissions, @rules, @created_by, @created_at)`),
  keyTaken: query('api key hash taken', 'SELECT 1 FROM api_keys WHERE key_hash = ?'),
  insertKey: query('insert api key', 'INSERT INTO api_keys (id, application_id, key_hash, key_last4, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
};

type KeyEventType = 'application.key.created' | 'application.key.deleted';

/** A key event: the key without its secret. */
function keyEvent(type: KeyEventType, applicationId: string, key: ApiKeyInfo, cause: EventCause): RaisedEvent {
  const { id, created_by, created_at } = key;
  return { type, data: () => ({ application_key: { id, application_id: applicationId, created_by, created_at } }), ...cause };
}

/** The list filters: a null parameter does not filter. */
const LIST_FILTER = `(@ids IS NULL OR id IN (SELECT value FROM json_each(@ids)))
  AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))`;

/** ≥128 bits of entropy (here 256), so a key cannot be guessed by a page probing localhost. */
export const generateApiKey = () => `key_local_${randomBytes(32).toString('base64url')}`;
export const MIN_SEEDED_KEY_LENGTH = 24;
/** All of a key that history and the workbench ever show: enough to tell two apart (every key has at least 24). */
export const keyLast4 = (key: string) => key.slice(-4);

/**
 * The keys Tokenbench keeps sealed to use again, one of each per application: the workbench's (the Composer sends with
 * it), the export key (every seed file exported carries it) and the runtime key (code transforms call back with it).
 */
export type KeptKeyPurpose = 'workbench' | 'export' | 'runtime';

/** A kept key with its secret, and whether this call made it. */
export interface KeptKey extends NewApiKey {
  made: boolean;
}

/** What the workbench tells of a key besides its id: its last four (null for a key made before they were kept), and what Tokenbench keeps it for (null for a client's key). */
export interface KeyFacts {
  key_last4: string | null;
  kept: KeptKeyPurpose | null;
}

/** A kept key without its secret. */
export interface KeptKeyInfo extends ApiKeyInfo {
  key_last4: string | null;
}

/** A sealed key is bound to its purpose, application and key id: a blob copied to another row does not open. */
const keptKeyBinding = (purpose: KeptKeyPurpose, applicationId: string, keyId: string) => `${purpose}-key:${applicationId}:${keyId}`;

export class ApplicationStore {
  /** Bumped on every change, so callers can drop what they cached about keys and rules. */
  version = 0;
  private readonly stmt;
  /** Runs the units that create applications (see creating). */
  private readonly units: UnitRunner;

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
    readonly tenantId: string,
    /** Where changes to applications and their keys raise their events. */
    private readonly outbox: EventOutbox,
  ) {
    this.units = unitsOf(db);
    this.stmt = {
      get: db.prepare('SELECT * FROM applications WHERE id = ?'),
      count: db.prepare('SELECT COUNT(*) AS n FROM applications'),
      countWhere: db.prepare(`SELECT COUNT(*) AS n FROM applications WHERE ${LIST_FILTER}`),
      page: db.prepare(`SELECT * FROM applications WHERE ${LIST_FILTER} ORDER BY created_at, id LIMIT @limit OFFSET @offset`),
      byName: db.prepare('SELECT * FROM applications WHERE name = ?'),
      update: db.prepare(`UPDATE applications SET name = @name, type = @type, permissions = @permissions, rules = @rules,
        modified_by = @modified_by, modified_at = @modified_at WHERE id = @id`),
      delete: db.prepare('DELETE FROM applications WHERE id = ?'),
      keys: db.prepare('SELECT id, created_by, created_at FROM api_keys WHERE application_id = ? ORDER BY created_at, id'),
      key: db.prepare('SELECT id, created_by, created_at FROM api_keys WHERE application_id = ? AND id = ?'),
      deleteKey: db.prepare('DELETE FROM api_keys WHERE application_id = ? AND id = ?'),
      byKeyHash: db.prepare('SELECT application_id, id FROM api_keys WHERE key_hash = ?'),
      keptKey: db.prepare(`SELECT k.id, k.created_by, k.created_at, k.key_last4, kept.sealed FROM kept_keys kept
        JOIN api_keys k ON k.id = kept.key_id WHERE kept.application_id = ? AND kept.purpose = ?`),
      keyFacts: db.prepare(`SELECT k.id, k.key_last4, kept.purpose AS kept FROM api_keys k
        LEFT JOIN kept_keys kept ON kept.key_id = k.id WHERE k.application_id = ?`),
      insertKeptKey: db.prepare('INSERT INTO kept_keys (key_id, application_id, purpose, sealed) VALUES (?, ?, ?, ?)'),
    };
  }

  private hydrate(row: ApplicationRow): Application {
    return {
      ...row,
      permissions: JSON.parse(row.permissions) as string[],
      rules: JSON.parse(row.rules) as AccessRule[],
      keys: this.stmt.keys.all(row.id) as ApiKeyInfo[],
    };
  }

  /**
   * `id` is given only by the engine, for an application it keeps under a name of its own (a node22 transform's).
   * `cause`, here and in every change below: who asked, which the events name; null for the engine's own applications
   * and keys (first start, seed, a node22 call's key), which raise none.
   */
  create(input: ApplicationInput, createdBy: string | null, key: { create: boolean; secret?: string }, cause: EventCause | null, id: string = randomUUID()) {
    const newKey = this.units.run(() => this.creating(input, createdBy, key, cause, id));
    this.created();
    return { application: this.get(id)!, key: newKey };
  }

  /**
   * The create unit, for a unit of the caller's that makes applications among other things (a seed): the application,
   * its key when asked, and their events. Answers the key; its caller calls `created` once committed.
   */
  *creating(input: ApplicationInput, createdBy: string | null, key: { create: boolean; secret?: string }, cause: EventCause | null, id: string = randomUUID()): Unit<NewApiKey | undefined> {
    const row: ApplicationRow = {
      id,
      tenant_id: this.tenantId,
      name: input.name,
      type: input.type,
      permissions: JSON.stringify(input.permissions),
      rules: JSON.stringify(input.rules),
      created_by: createdBy,
      created_at: new Date().toISOString(),
      modified_by: null,
      modified_at: null,
    };
    yield* tx.run(creates.insert, row);
    const newKey = key.create ? yield* this.insertingKey(id, createdBy, key.secret) : undefined;
    if (cause === null) return newKey;
    const application = { ...row, permissions: input.permissions, rules: input.rules };
    yield* this.outbox.store({ type: 'application.created', data: () => ({ application }), ...cause });
    if (newKey) yield* this.outbox.store(keyEvent('application.key.created', id, newKey, cause));
    return newKey;
  }

  /** After a unit with `creating` in it has committed. */
  created(): void {
    this.version++;
    this.outbox.committed();
  }

  get(id: string): Application | undefined {
    const row = this.stmt.get.get(id) as ApplicationRow | undefined;
    return row && this.hydrate(row);
  }

  require(id: string): Application {
    const app = this.get(id);
    if (!app) throw new ApiProblem(404, `Application ${id} not found`);
    return app;
  }

  findByName(name: string): Application[] {
    return (this.stmt.byName.all(name) as ApplicationRow[]).map((r) => this.hydrate(r));
  }

  count(): number {
    return (this.stmt.count.get() as { n: number }).n;
  }

  /** One page of the applications, only those with one of `filter.ids` and one of `filter.types` when given. */
  page(page: number, size: number, filter: { ids?: string[]; types?: string[] } = {}): { total: number; items: Application[] } {
    const params = {
      ids: filter.ids?.length ? JSON.stringify(filter.ids) : null,
      types: filter.types?.length ? JSON.stringify(filter.types) : null,
    };
    const rows = this.stmt.page.all({ ...params, limit: size, offset: (page - 1) * size }) as ApplicationRow[];
    return { total: (this.stmt.countWhere.get(params) as { n: number }).n, items: rows.map((r) => this.hydrate(r)) };
  }

  update(id: string, input: ApplicationInput, modifiedBy: string | null, cause: EventCause | null): Application {
    this.require(id);
    this.db.transaction(() => {
      this.stmt.update.run({
        id,
        name: input.name,
        type: input.type,
        permissions: JSON.stringify(input.permissions),
        rules: JSON.stringify(input.rules),
        modified_by: modifiedBy,
        modified_at: new Date().toISOString(),
      });
      this.raise('application.updated', id, cause);
    })();
    this.version++;
    return this.require(id);
  }

  delete(id: string, cause: EventCause | null): void {
    this.db.transaction(() => {
      // Raised first: the event shows the application as it was.
      this.raise('application.deleted', id, cause);
      if (this.stmt.delete.run(id).changes === 0) throw new ApiProblem(404, `Application ${id} not found`);
    })();
    this.version++;
  }

  /** An application event: the application as it stands, without its keys. */
  private raise(type: 'application.created' | 'application.updated' | 'application.deleted', id: string, cause: EventCause | null): void {
    if (cause === null) return;
    this.outbox.raise({
      type,
      data: () => {
        const { keys: _keys, ...application } = this.get(id) ?? { id, keys: [] };
        return { application };
      },
      ...cause,
    });
  }

  private raiseKey(type: KeyEventType, applicationId: string, key: ApiKeyInfo, cause: EventCause | null): void {
    if (cause !== null) this.outbox.raise(keyEvent(type, applicationId, key, cause));
  }

  /** After the vault's wipe (deleteAllApplications): what was read of the applications is stale. */
  forgetAll(): void {
    this.version++;
  }

  createKey(applicationId: string, createdBy: string | null, cause: EventCause | null, secret?: string): NewApiKey {
    this.require(applicationId);
    const key = this.db.transaction(() => {
      const made = this.insertKey(applicationId, createdBy, secret);
      this.raiseKey('application.key.created', applicationId, made, cause);
      return made;
    })();
    this.version++;
    return key;
  }

  /**
   * The vendor's deprecated helper for an application with exactly one key: that key is revoked and a new one made,
   * in one transaction. With no key or several it refuses (422), as the vendor does: which key would go is unclear.
   */
  regenerateKey(applicationId: string, createdBy: string | null, cause: EventCause | null): { application: Application; key: NewApiKey } {
    const key = this.db.transaction(() => {
      // The keys Tokenbench keeps (the workbench's, the seed files') are not the client's: they neither count nor go.
      const facts = this.keyFacts(applicationId);
      const keys = this.listKeys(applicationId).filter((k) => !facts.get(k.id)?.kept);
      if (keys.length !== 1) {
        throw new ApiProblem(422, `Only an application with exactly one key can regenerate it; this one has ${keys.length}. Create and delete keys under /applications/${applicationId}/keys instead`);
      }
      this.stmt.deleteKey.run(applicationId, keys[0].id);
      this.raiseKey('application.key.deleted', applicationId, keys[0], cause);
      const made = this.insertKey(applicationId, createdBy);
      this.raiseKey('application.key.created', applicationId, made, cause);
      return made;
    })();
    this.version++;
    return { application: this.require(applicationId), key };
  }

  /**
   * The key kept for this purpose: made on first use, and kept sealed under the master key so the engine can use it
   * again (the workbench sends with it, seed files carry it). One of each per application; revoked like any key, after
   * which the next use makes another.
   */
  keptKey(applicationId: string, purpose: KeptKeyPurpose): KeptKey {
    return this.db.transaction((): KeptKey => {
      this.require(applicationId);
      const row = this.stmt.keptKey.get(applicationId, purpose) as (KeptKeyInfo & { sealed: Buffer }) | undefined;
      if (row) {
        const key = this.sealer.open(row.sealed, keptKeyBinding(purpose, applicationId, row.id)).toString('utf8');
        return { id: row.id, created_by: row.created_by, created_at: row.created_at, key, made: false };
      }
      const made = this.insertKey(applicationId, null);
      this.stmt.insertKeptKey.run(made.id, applicationId, purpose, this.sealer.seal(made.key, keptKeyBinding(purpose, applicationId, made.id)));
      this.version++;
      return { ...made, made: true };
    })();
  }

  /** The key kept for this purpose, without its secret; null before its first use or once revoked. */
  keptKeyInfo(applicationId: string, purpose: KeptKeyPurpose): KeptKeyInfo | null {
    const row = this.stmt.keptKey.get(applicationId, purpose) as (KeptKeyInfo & { sealed: Buffer }) | undefined;
    return row ? { id: row.id, created_by: row.created_by, created_at: row.created_at, key_last4: row.key_last4 } : null;
  }

  /** What the workbench tells of each of the application's keys, by key id. */
  keyFacts(applicationId: string): Map<string, KeyFacts> {
    const rows = this.stmt.keyFacts.all(applicationId) as ({ id: string } & KeyFacts)[];
    return new Map(rows.map(({ id, key_last4, kept }) => [id, { key_last4, kept }]));
  }

  /** Inside the caller's SQLite transaction, where it joins as a savepoint. */
  private insertKey(applicationId: string, createdBy: string | null, secret?: string): NewApiKey {
    return this.units.run(() => this.insertingKey(applicationId, createdBy, secret));
  }

  private *insertingKey(applicationId: string, createdBy: string | null, secret = generateApiKey()): Unit<NewApiKey> {
    const info = { id: randomUUID(), created_by: createdBy, created_at: new Date().toISOString() };
    const hash = this.sealer.hashApiKey(secret);
    if (yield* tx.get(creates.keyTaken, [hash])) throw new ApiProblem(409, 'That key is already in use');
    yield* tx.run(creates.insertKey, [info.id, applicationId, hash, keyLast4(secret), info.created_by, info.created_at]);
    return { ...info, key: secret };
  }

  listKeys(applicationId: string): ApiKeyInfo[] {
    this.require(applicationId);
    return this.stmt.keys.all(applicationId) as ApiKeyInfo[];
  }

  getKey(applicationId: string, keyId: string): ApiKeyInfo {
    const key = this.stmt.key.get(applicationId, keyId) as ApiKeyInfo | undefined;
    if (!key) throw new ApiProblem(404, `Key ${keyId} not found on application ${applicationId}`);
    return key;
  }

  deleteKey(applicationId: string, keyId: string, cause: EventCause | null): void {
    this.db.transaction(() => {
      const key = this.stmt.key.get(applicationId, keyId) as ApiKeyInfo | undefined;
      if (!key || this.stmt.deleteKey.run(applicationId, keyId).changes === 0) {
        throw new ApiProblem(404, `Key ${keyId} not found on application ${applicationId}`);
      }
      this.raiseKey('application.key.deleted', applicationId, key, cause);
    })();
    this.version++;
  }

  /** The application a secret key belongs to, by its keyed hash. */
  findByKey(secret: string): { application: Application; keyId: string } | undefined {
    const row = this.stmt.byKeyHash.get(this.sealer.hashApiKey(secret)) as
      | { application_id: string; id: string }
      | undefined;
    if (!row) return undefined;
    const application = this.get(row.application_id);
    return application && { application, keyId: row.id };
  }
}
