import { randomBytes, randomUUID } from 'node:crypto';
import type { EventCause, EventOutbox, RaisedEvent } from '../events/event-outbox';
import { keepCoherent } from '../storage/coherent-memory';
import type { Sealer } from '../storage/crypto';
import { afterRun, type AnyUnitRunner, query, tx, type Unit } from '../storage/unit';
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

/** A key as the store reads it: with its keyed hash, what the workbench tells of it, and its sealed secret when kept. */
interface KeyRow extends ApiKeyInfo {
  application_id: string;
  key_hash: string;
  key_last4: string | null;
  kept: KeptKeyPurpose | null;
  sealed: Buffer | null;
}

const KEY_COLUMNS = `k.id, k.application_id, k.key_hash, k.key_last4, k.created_by, k.created_at, kept.purpose AS kept, kept.sealed
  FROM api_keys k LEFT JOIN kept_keys kept ON kept.key_id = k.id`;

/** The change feed's channel of the application units, naming the application changed. */
const CHANNEL = 'applications';

const q = {
  application: query<ApplicationRow>('application by id', 'SELECT * FROM applications WHERE id = ?'),
  applications: query<ApplicationRow>('every application', 'SELECT * FROM applications ORDER BY created_at, id'),
  keysOf: query<KeyRow>('keys of an application', `SELECT ${KEY_COLUMNS} WHERE k.application_id = ? ORDER BY k.created_at, k.id`),
  keys: query<KeyRow>('every api key', `SELECT ${KEY_COLUMNS} ORDER BY k.created_at, k.id`),
  count: query<number>('count applications', 'SELECT COUNT(*) FROM applications', { pluck: true }),
  insert: query('insert application', `INSERT INTO applications (id, tenant_id, name, type, permissions, rules, created_by, created_at)
    VALUES (@id, @tenant_id, @name, @type, @permissions, @rules, @created_by, @created_at)`),
  update: query('update application', `UPDATE applications SET name = @name, type = @type, permissions = @permissions, rules = @rules,
    modified_by = @modified_by, modified_at = @modified_at WHERE id = @id`),
  delete: query('delete application', 'DELETE FROM applications WHERE id = ?'),
  keyTaken: query('api key hash taken', 'SELECT 1 FROM api_keys WHERE key_hash = ?'),
  insertKey: query('insert api key', 'INSERT INTO api_keys (id, application_id, key_hash, key_last4, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
  deleteKey: query('delete api key', 'DELETE FROM api_keys WHERE application_id = ? AND id = ?'),
  insertKeptKey: query('insert kept key', 'INSERT INTO kept_keys (key_id, application_id, purpose, sealed) VALUES (?, ?, ?, ?)'),
};

/** How many applications the store holds, read inside a unit (the first start's check, which a seed's refill may change). */
export function* countingApplications(): Unit<number> {
  return (yield* tx.get(q.count))!;
}

/** An application as the store holds it: with its keys' hashes, facts and sealed kept keys. */
export interface HeldApplication {
  application: Application;
  keys: KeyRow[];
}

/** What `creating` made: the application as it now stands, for `created`, and its key when one was asked for. */
export interface Created {
  held: HeldApplication;
  key: NewApiKey | undefined;
}

const byCreation = (a: Application, b: Application) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function heldOf(row: ApplicationRow, keys: KeyRow[]): HeldApplication {
  return {
    application: {
      ...row,
      permissions: JSON.parse(row.permissions) as string[],
      rules: JSON.parse(row.rules) as AccessRule[],
      keys: keys.map(({ id, created_by, created_at }) => ({ id, created_by, created_at })),
    },
    keys,
  };
}

/** The application `id` as it stands in the database, read inside the unit that changed it; undefined once gone. */
function* holding(id: string): Unit<HeldApplication | undefined> {
  const row = yield* tx.get(q.application, [id]);
  return row && heldOf(row, yield* tx.all(q.keysOf, [id]));
}

/** The application without its keys, as its events show it. */
function withoutKeys({ keys: _keys, ...application }: Application) {
  return application;
}

type KeyEventType = 'application.key.created' | 'application.key.deleted';

/** A key event: the key without its secret. */
function keyEvent(type: KeyEventType, applicationId: string, key: ApiKeyInfo, cause: EventCause): RaisedEvent {
  const { id, created_by, created_at } = key;
  return { type, data: () => ({ application_key: { id, application_id: applicationId, created_by, created_at } }), ...cause };
}

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

/**
 * Applications and their keys, every one held in memory as well: the authenticator resolves each request's key to its
 * application (its type, permissions and rules) and a session to its owner, and these hot reads answer from memory
 * without waiting on the database. Writes are units; memory follows each once it has committed (settle).
 */
export class ApplicationStore {
  /** Bumped on every change, so callers can drop what they cached about keys and rules. */
  version = 0;
  private readonly held = new Map<string, HeldApplication>();
  /** Each key's application and id, by the key's keyed hash. */
  private readonly byHash = new Map<string, { applicationId: string; keyId: string }>();

  constructor(
    /** Runs this store's units; also the runner a caller's unit with `creating` in it runs on. */
    readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    readonly tenantId: string,
    /** Where changes to applications and their keys raise their events. */
    private readonly outbox: EventOutbox,
  ) {
    keepCoherent(units.changes, { channel: CHANNEL, reloadOne: (id) => this.reload(id), reloadAll: () => this.load() });
  }

  /** The application `id` read again, after another replica changed it. */
  private async reload(id: string): Promise<void> {
    this.settle(id, await this.units.read(() => holding(id)));
  }

  /** Reads every application and key into memory: once at start, before any request; again when notices were lost. */
  async load(): Promise<void> {
    const { rows, keys } = await this.units.read(function* () {
      return { rows: yield* tx.all(q.applications), keys: yield* tx.all(q.keys) };
    });
    const keysOf = new Map<string, KeyRow[]>();
    for (const key of keys) {
      const of = keysOf.get(key.application_id);
      if (of) of.push(key);
      else keysOf.set(key.application_id, [key]);
    }
    this.forgetAll();
    for (const row of rows) this.settle(row.id, heldOf(row, keysOf.get(row.id) ?? []));
  }

  /** The one place memory changes: the application `id` as the database now holds it (undefined once deleted). */
  private settle(id: string, now: HeldApplication | undefined): void {
    for (const key of this.held.get(id)?.keys ?? []) this.byHash.delete(key.key_hash);
    if (now) {
      this.held.set(id, now);
      for (const key of now.keys) this.byHash.set(key.key_hash, { applicationId: id, keyId: key.id });
    } else {
      this.held.delete(id);
    }
    this.version++;
  }

  /** Runs a unit that changes the application `id` and reads it back in the same transaction, then settles it. */
  private changing<T>(id: string, change: () => Unit<T>): T | Promise<T> {
    const answer = this.units.run(function* () {
      const value = yield* change();
      yield* tx.notify(CHANNEL, id);
      return [value, yield* holding(id)] as const;
    });
    return afterRun(answer, ([value, now]) => {
      this.settle(id, now);
      this.outbox.committed();
      return value;
    });
  }

  /**
   * `id` is given only by the engine, for an application it keeps under a name of its own (a node22 transform's).
   * `cause`, here and in every change below: who asked, which the events name; null for the engine's own applications
   * and keys (first start, seed, a node22 call's key), which raise none.
   */
  async create(input: ApplicationInput, createdBy: string | null, key: { create: boolean; secret?: string }, cause: EventCause | null, id: string = randomUUID()) {
    return afterRun(this.units.run(() => this.creating(input, createdBy, key, cause, id)), (made) => {
      this.created([made]);
      return { application: made.held.application, key: made.key };
    });
  }

  /**
   * The create unit, for a unit of the caller's that makes applications among other things (a seed, the first start):
   * the application, its key when asked, and their events. Its caller hands what it answers to `created` once committed.
   */
  *creating(input: ApplicationInput, createdBy: string | null, key: { create: boolean; secret?: string }, cause: EventCause | null, id: string = randomUUID()): Unit<Created> {
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
    yield* tx.run(q.insert, row);
    const newKey = key.create ? yield* this.insertingKey(id, createdBy, key.secret) : undefined;
    if (cause !== null) {
      const application = { ...row, permissions: input.permissions, rules: input.rules };
      yield* this.outbox.store({ type: 'application.created', data: () => ({ application }), ...cause });
      if (newKey) yield* this.outbox.store(keyEvent('application.key.created', id, newKey, cause));
    }
    yield* tx.notify(CHANNEL, id);
    return { held: (yield* holding(id))!, key: newKey };
  }

  /** After a unit with `creating` in it has committed. */
  created(made: readonly Created[]): void {
    for (const { held } of made) this.settle(held.application.id, held);
    this.outbox.committed();
  }

  get(id: string): Application | undefined {
    return this.held.get(id)?.application;
  }

  require(id: string): Application {
    const app = this.get(id);
    if (!app) throw new ApiProblem(404, `Application ${id} not found`);
    return app;
  }

  /** Every application, oldest first (ties by id), as the list pages them. */
  private all(): Application[] {
    return [...this.held.values()].map((held) => held.application).sort(byCreation);
  }

  findByName(name: string): Application[] {
    return this.all().filter((application) => application.name === name);
  }

  count(): number {
    return this.held.size;
  }

  /** One page of the applications, only those with one of `filter.ids` and one of `filter.types` when given. */
  page(page: number, size: number, filter: { ids?: string[]; types?: string[] } = {}): { total: number; items: Application[] } {
    const ids = filter.ids?.length ? new Set(filter.ids) : null;
    const types = filter.types?.length ? new Set(filter.types) : null;
    const matching = this.all().filter((application) => (!ids || ids.has(application.id)) && (!types || types.has(application.type)));
    const offset = (page - 1) * size;
    return { total: matching.length, items: matching.slice(offset, offset + size) };
  }

  async update(id: string, input: ApplicationInput, modifiedBy: string | null, cause: EventCause | null): Promise<Application> {
    this.require(id);
    const fields = {
      id,
      name: input.name,
      type: input.type,
      permissions: JSON.stringify(input.permissions),
      rules: JSON.stringify(input.rules),
      modified_by: modifiedBy,
      modified_at: new Date().toISOString(),
    };
    return afterRun(this.changing(id, () => this.updating(fields, cause)), () => this.require(id));
  }

  private *updating(fields: { id: string; modified_by: string | null; modified_at: string }, cause: EventCause | null): Unit<void> {
    yield* tx.run(q.update, fields);
    yield* this.raising('application.updated', fields.id, cause);
  }

  async delete(id: string, cause: EventCause | null): Promise<void> {
    await this.changing(id, () => this.deleting(id, cause));
  }

  private *deleting(id: string, cause: EventCause | null): Unit<void> {
    // Raised first: the event shows the application as it was.
    yield* this.raising('application.deleted', id, cause);
    if ((yield* tx.run(q.delete, [id])).changes === 0) throw new ApiProblem(404, `Application ${id} not found`);
  }

  /** An application event: the application as it stands in the unit's transaction, without its keys. */
  private *raising(type: 'application.updated' | 'application.deleted', id: string, cause: EventCause | null): Unit<void> {
    if (cause === null || !this.outbox.wants(type)) return;
    const now = yield* holding(id);
    const application = now ? withoutKeys(now.application) : { id };
    yield* this.outbox.store({ type, data: () => ({ application }), ...cause });
  }

  private *raisingKey(type: KeyEventType, applicationId: string, key: ApiKeyInfo, cause: EventCause | null): Unit<void> {
    if (cause !== null) yield* this.outbox.store(keyEvent(type, applicationId, key, cause));
  }

  /** After the vault's wipe (deleteAllApplications): no application is left. */
  forgetAll(): void {
    this.held.clear();
    this.byHash.clear();
    this.version++;
  }

  async createKey(applicationId: string, createdBy: string | null, cause: EventCause | null, secret?: string): Promise<NewApiKey> {
    this.require(applicationId);
    return this.changing(applicationId, () => this.keying(applicationId, createdBy, cause, secret));
  }

  private *keying(applicationId: string, createdBy: string | null, cause: EventCause | null, secret?: string): Unit<NewApiKey> {
    const made = yield* this.insertingKey(applicationId, createdBy, secret);
    yield* this.raisingKey('application.key.created', applicationId, made, cause);
    return made;
  }

  /**
   * The vendor's deprecated helper for an application with exactly one key: that key is revoked and a new one made,
   * in one transaction. With no key or several it refuses (422), as the vendor does: which key would go is unclear.
   */
  async regenerateKey(applicationId: string, createdBy: string | null, cause: EventCause | null): Promise<{ application: Application; key: NewApiKey }> {
    this.require(applicationId);
    return afterRun(this.changing(applicationId, () => this.regenerating(applicationId, createdBy, cause)), (key) => ({ application: this.require(applicationId), key }));
  }

  private *regenerating(applicationId: string, createdBy: string | null, cause: EventCause | null): Unit<NewApiKey> {
    // The keys Tokenbench keeps (the workbench's, the seed files') are not the client's: they neither count nor go.
    const keys = (yield* tx.all(q.keysOf, [applicationId])).filter((k) => !k.kept);
    if (keys.length !== 1) {
      throw new ApiProblem(422, `Only an application with exactly one key can regenerate it; this one has ${keys.length}. Create and delete keys under /applications/${applicationId}/keys instead`);
    }
    yield* tx.run(q.deleteKey, [applicationId, keys[0].id]);
    yield* this.raisingKey('application.key.deleted', applicationId, keys[0], cause);
    return yield* this.keying(applicationId, createdBy, cause);
  }

  /**
   * The key kept for this purpose: made on first use, and kept sealed under the master key so the engine can use it
   * again (the workbench sends with it, seed files carry it). One of each per application; revoked like any key, after
   * which the next use makes another.
   */
  async keptKey(applicationId: string, purpose: KeptKeyPurpose): Promise<KeptKey> {
    this.require(applicationId);
    const held = this.heldKept(applicationId, purpose);
    if (held) return { ...this.opened(held), made: false };
    return this.changing(applicationId, () => this.keeping(applicationId, purpose));
  }

  private *keeping(applicationId: string, purpose: KeptKeyPurpose): Unit<KeptKey> {
    // Another process may have made it since this one last read.
    const found = (yield* tx.all(q.keysOf, [applicationId])).find((k) => k.kept === purpose);
    if (found) return { ...this.opened(found), made: false };
    const made = yield* this.insertingKey(applicationId, null);
    yield* tx.run(q.insertKeptKey, [made.id, applicationId, purpose, this.sealer.seal(made.key, keptKeyBinding(purpose, applicationId, made.id))]);
    return { ...made, made: true };
  }

  private heldKept(applicationId: string, purpose: KeptKeyPurpose): KeyRow | undefined {
    return this.held.get(applicationId)?.keys.find((k) => k.kept === purpose);
  }

  private opened(row: KeyRow): NewApiKey {
    const key = this.sealer.open(row.sealed!, keptKeyBinding(row.kept!, row.application_id, row.id)).toString('utf8');
    return { id: row.id, created_by: row.created_by, created_at: row.created_at, key };
  }

  /** The key kept for this purpose, without its secret; null before its first use or once revoked. */
  keptKeyInfo(applicationId: string, purpose: KeptKeyPurpose): KeptKeyInfo | null {
    const row = this.heldKept(applicationId, purpose);
    return row ? { id: row.id, created_by: row.created_by, created_at: row.created_at, key_last4: row.key_last4 } : null;
  }

  /** What the workbench tells of each of the application's keys, by key id. */
  keyFacts(applicationId: string): Map<string, KeyFacts> {
    const keys = this.held.get(applicationId)?.keys ?? [];
    return new Map(keys.map(({ id, key_last4, kept }) => [id, { key_last4, kept }]));
  }

  private *insertingKey(applicationId: string, createdBy: string | null, secret = generateApiKey()): Unit<NewApiKey> {
    const info = { id: randomUUID(), created_by: createdBy, created_at: new Date().toISOString() };
    const hash = this.sealer.hashApiKey(secret);
    if (yield* tx.get(q.keyTaken, [hash])) throw new ApiProblem(409, 'That key is already in use');
    yield* tx.run(q.insertKey, [info.id, applicationId, hash, keyLast4(secret), info.created_by, info.created_at]);
    return { ...info, key: secret };
  }

  listKeys(applicationId: string): ApiKeyInfo[] {
    return this.require(applicationId).keys;
  }

  getKey(applicationId: string, keyId: string): ApiKeyInfo {
    const key = this.get(applicationId)?.keys.find((k) => k.id === keyId);
    if (!key) throw new ApiProblem(404, `Key ${keyId} not found on application ${applicationId}`);
    return key;
  }

  async deleteKey(applicationId: string, keyId: string, cause: EventCause | null): Promise<void> {
    await this.changing(applicationId, () => this.unkeying(applicationId, keyId, cause));
  }

  private *unkeying(applicationId: string, keyId: string, cause: EventCause | null): Unit<void> {
    const key = (yield* tx.all(q.keysOf, [applicationId])).find((k) => k.id === keyId);
    if (!key || (yield* tx.run(q.deleteKey, [applicationId, keyId])).changes === 0) {
      throw new ApiProblem(404, `Key ${keyId} not found on application ${applicationId}`);
    }
    yield* this.raisingKey('application.key.deleted', applicationId, key, cause);
  }

  /** The application a secret key belongs to, by its keyed hash. */
  findByKey(secret: string): { application: Application; keyId: string } | undefined {
    const found = this.byHash.get(this.sealer.hashApiKey(secret));
    const application = found && this.get(found.applicationId);
    return application && { application, keyId: found.keyId };
  }
}
