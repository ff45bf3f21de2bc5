/**
 * Pre-configured proxies in the database (migration 13), all held in memory as well: a /proxy call finds its proxy by
 * key with one map lookup, without waiting for the database, and there are few proxies. The key and the configuration
 * are sealed at rest.
 */
import type { EventCause, EventOutbox, RaisedEvent } from '../events/event-outbox';
import { randomBytes, randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import { keepRowsCoherent } from '../storage/coherent-memory';
import type { Sealer } from '../storage/crypto';
import { writable } from './files/file-served';
import { definitionOf, type ProxyDefinition, type RequestedChange, type StoredProxy } from './proxy-model';
import { query, tx, type AnyUnitRunner, type Query } from '../storage/unit';

/** The vault's wipe: every proxy of the API goes (ProxyStore.forgetAll once committed). */
export const deleteAllProxies = query('delete all proxies', 'DELETE FROM proxies');
/** The change feed's channel of the proxies' changes, naming the proxy changed. */
const CHANNEL = 'proxies';
const everyProxy = query<ProxyRow>('every proxy', 'SELECT * FROM proxies ORDER BY created_at, id');
const oneProxy = query<ProxyRow>('proxy by id', 'SELECT * FROM proxies WHERE id = ?');
const insertProxy = query('insert proxy', `INSERT INTO proxies (id, name, destination_url, definition, sealed, state, created_by, created_at)
  VALUES (@id, @name, @destination_url, @definition, @sealed, @state, @created_by, @created_at)`);
const updateProxy = query('update proxy', `UPDATE proxies SET name = @name, destination_url = @destination_url, definition = @definition, sealed = @sealed,
  state = @state, modified_by = @modified_by, modified_at = @modified_at WHERE id = @id`);
const deleteProxy = query('delete proxy', 'DELETE FROM proxies WHERE id = @id');

interface ProxyRow {
  id: string;
  name: string;
  destination_url: string;
  definition: string;
  sealed: Buffer;
  state: StoredProxy['state'];
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

/** What the row keeps as plain JSON; `live` is absent in rows written before proxies could fail (all live). */
type PlainPart = Pick<ProxyDefinition, 'request_transforms' | 'response_transforms' | 'application_id' | 'require_auth' | 'disable_detokenization'> & { live?: boolean };
/** What the row keeps sealed: a requested change too, as it holds a configuration. */
interface SealedPart {
  key: string;
  configuration: Record<string, string>;
  requested?: RequestedChange | null;
}

/** Why a saved definition cannot go live (RequestedChange without the definition), or null when it can. */
export type SaveFailure = Omit<RequestedChange, 'definition'> | null;

/**
 * What a save leaves live: the definition when it can go live; otherwise the proxy's live version keeps serving, with
 * the change as `requested` (vendor §1.4), and a proxy that never had one shows the change it cannot serve.
 */
function saved(old: StoredProxy | null, definition: ProxyDefinition, failure: SaveFailure): Pick<StoredProxy, 'state' | 'requested' | 'live'> & ProxyDefinition {
  if (failure === null) return { ...definition, state: 'active', requested: null, live: true };
  const requested = { definition, ...failure };
  return old?.live ? { ...definitionOf(old), state: 'failed', requested, live: true } : { ...definition, state: 'failed', requested, live: false };
}

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const KEY_LENGTH = 32;

/** 32 characters of [a-z0-9], each from a uniform byte (rejection sampling): about 165 bits. */
export function newProxyKey(): string {
  let key = '';
  while (key.length < KEY_LENGTH) {
    for (const byte of randomBytes(KEY_LENGTH)) {
      // 252 = 7 × 36: bytes above it would favour the first letters.
      if (byte < 252 && key.length < KEY_LENGTH) key += KEY_ALPHABET[byte % 36];
    }
  }
  return key;
}

const binding = (id: string) => `proxy:${id}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ProxyListQuery {
  ids: readonly string[];
  name: string | undefined;
}

/** A proxy as its events show it (vendor-surfaces.md §5.5): never its key, transforms or configuration. */
function proxyEventFields(proxy: StoredProxy, updated: boolean): Record<string, unknown> {
  const { id, name, application_id, destination_url, require_auth, created_at, created_by } = proxy;
  const fields = { id, name, application_id, destination_url, require_authentication: require_auth, created_at, created_by };
  return updated ? { ...fields, modified_at: proxy.modified_at, modified_by: proxy.modified_by, proxy_host: null, timeout: null } : fields;
}

const deleted = (proxy: StoredProxy, cause: EventCause): RaisedEvent => ({ type: 'proxy.deleted', data: () => ({ proxy: { id: proxy.id } }), ...cause });

export class ProxyStore {
  private readonly byId = new Map<string, StoredProxy>();
  private readonly byKey = new Map<string, StoredProxy>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    /** Where the API's changes to proxies raise their events. */
    private readonly outbox: EventOutbox,
  ) {
    keepRowsCoherent(units, CHANNEL, oneProxy, (id, row) => this.settleRow(id, row), () => this.load());
  }

  /** Reads the API's proxies into memory: once at start, before anything looks one up, and again when notices were lost. */
  async load(): Promise<void> {
    const rows = await this.units.read(() => tx.all(everyProxy));
    this.forgetAll();
    for (const row of rows) this.remember(this.hydrate(row));
  }

  /** A row another replica changed, as the database now holds it. */
  private settleRow(id: string, row: ProxyRow | undefined): void {
    const held = this.byId.get(id);
    if (row) this.settle(this.hydrate(row));
    else if (held) this.settle(held, true);
  }

  private hydrate(row: ProxyRow): StoredProxy {
    const { live = true, ...plain } = JSON.parse(row.definition) as PlainPart;
    const { key, configuration, requested = null } = this.sealer.openJson<SealedPart>(row.sealed, binding(row.id));
    return { ...row, ...plain, key, configuration, requested, live };
  }

  private remember(proxy: StoredProxy): void {
    this.byId.set(proxy.id, proxy);
    this.byKey.set(proxy.key, proxy);
  }

  private rowOf(proxy: StoredProxy) {
    const plain: PlainPart = {
      request_transforms: proxy.request_transforms,
      response_transforms: proxy.response_transforms,
      application_id: proxy.application_id,
      require_auth: proxy.require_auth,
      disable_detokenization: proxy.disable_detokenization,
      live: proxy.live,
    };
    const sealed: SealedPart = { key: proxy.key, configuration: proxy.configuration, requested: proxy.requested };
    return { ...proxy, definition: JSON.stringify(plain), sealed: this.sealer.sealJson(sealed, binding(proxy.id)) };
  }

  /** One statement on the proxy's row and the event it raises, committed or rolled back together. */
  private write(statement: Query, params: { id: string }, event: RaisedEvent | null): Promise<number> {
    return this.outbox.change(this.units, statement, params, event, { channel: CHANNEL, id: params.id });
  }

  /** The one place memory follows a committed change: the proxy as it now is, or gone. */
  private settle(proxy: StoredProxy, gone = false): StoredProxy {
    if (!gone) {
      this.remember(proxy);
    } else if (this.byId.get(proxy.id)?.file === undefined) {
      // Only the proxy deleted: a file proxy may have taken its id and key meanwhile (an export).
      this.byId.delete(proxy.id);
      this.byKey.delete(proxy.key);
    }
    return proxy;
  }

  /** `cause`, here and in replace and delete: who asked, which the events name. */
  async create(definition: ProxyDefinition, createdBy: string, failure: SaveFailure, cause: EventCause): Promise<StoredProxy> {
    const proxy: StoredProxy = {
      ...saved(null, definition, failure),
      id: randomUUID(),
      key: newProxyKey(),
      created_by: createdBy,
      created_at: nowIso(),
      modified_by: null,
      modified_at: null,
    };
    await this.write(insertProxy, this.rowOf(proxy), { type: 'proxy.created', data: () => ({ proxy: proxyEventFields(proxy, false) }), ...cause });
    return this.settle(proxy);
  }

  /** 404 for an unknown id, and for one that is no UUID. */
  require(id: string): StoredProxy {
    const proxy = UUID.test(id) ? this.byId.get(id.toLowerCase()) : undefined;
    if (!proxy) throw new ApiProblem(404, `Proxy ${id} not found`);
    return proxy;
  }

  /** A proxy the API may change: 409 for one loaded from a file, whose file is the one place to change it. */
  requireWritable(id: string): StoredProxy {
    return writable('Proxy', this.require(id));
  }

  /** Puts a file proxy in, or its new version in place of the one before; it is held in memory only. */
  install(proxy: StoredProxy): void {
    const before = this.byId.get(proxy.id);
    if (before && before.key !== proxy.key) this.byKey.delete(before.key);
    this.remember(proxy);
  }

  /** Takes a file proxy out (its file is gone). */
  uninstall(id: string): void {
    const proxy = this.byId.get(id);
    if (!proxy?.file) return;
    this.byId.delete(id);
    this.byKey.delete(proxy.key);
  }

  /** Whether a proxy (of the API or of a file) has this id or this key. */
  holds(id: string, key: string): boolean {
    return this.byId.has(id.toLowerCase()) || this.byKey.has(key);
  }

  /** The proxy a /proxy call names by its key. */
  byInvocationKey(key: string): StoredProxy | undefined {
    return this.byKey.get(key);
  }

  /** A new definition in place (live, or requested when it cannot be): the id, key and creation stay. */
  async replace(id: string, definition: ProxyDefinition, modifiedBy: string, failure: SaveFailure, cause: EventCause): Promise<StoredProxy> {
    const old = this.requireWritable(id);
    const proxy: StoredProxy = { ...old, ...saved(old, definition, failure), modified_by: modifiedBy, modified_at: nowIso() };
    const event: RaisedEvent = { type: 'proxy.updated', data: () => ({ proxy: proxyEventFields(proxy, true) }), ...cause };
    if ((await this.write(updateProxy, this.rowOf(proxy), event)) === 0) throw this.gone(old);
    return this.settle(proxy);
  }

  /** A failed proxy's requested change goes live, as its last writer saved it (what it lacked is there now). */
  async activate(id: string): Promise<StoredProxy> {
    const old = this.require(id);
    const proxy: StoredProxy = { ...old, ...saved(old, old.requested!.definition, null) };
    if ((await this.write(updateProxy, this.rowOf(proxy), null)) === 0) throw this.gone(old);
    return this.settle(proxy);
  }

  async delete(id: string, cause: EventCause): Promise<void> {
    const proxy = this.requireWritable(id);
    await this.write(deleteProxy, { id: proxy.id }, deleted(proxy, cause));
    this.settle(proxy, true);
  }

  /** A proxy another writer deleted since it was read: forgotten here too, and a 404 as if it had been already. */
  private gone(proxy: StoredProxy): ApiProblem {
    this.settle(proxy, true);
    return new ApiProblem(404, `Proxy ${proxy.id} not found`);
  }

  /** In creation order, filtered by id (any of them) and name (a case-insensitive part of it). */
  list(query: ProxyListQuery): StoredProxy[] {
    const name = query.name?.toLowerCase();
    return [...this.byId.values()].filter((p) => (query.ids.length === 0 || query.ids.includes(p.id)) && (name === undefined || p.name.toLowerCase().includes(name)));
  }

  /** Whether any proxy has a code transform (the engine then readies its code runtime at start). */
  holdsCode(): boolean {
    return [...this.byId.values()].some((p) => [...p.request_transforms, ...p.response_transforms].some((t) => t.type === 'code'));
  }

  /** After the vault's wipe (deleteAllProxies): the proxies of the API go from memory; those of the folder's files stay. */
  forgetAll(): void {
    for (const proxy of [...this.byId.values()]) {
      if (proxy.file) continue;
      this.byId.delete(proxy.id);
      this.byKey.delete(proxy.key);
    }
  }
}

