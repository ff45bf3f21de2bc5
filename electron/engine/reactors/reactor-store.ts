/**
 * Reactors in the database (migration 17), all held in memory as well: there are few, and each react reads one without
 * waiting for the database. The code and the configuration are sealed at rest.
 */
import type { EventCause, EventOutbox, RaisedEvent } from '../events/event-outbox';
import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';
import { missingDependencies } from '../code-runtime';
import { writable } from '../proxies/files/file-served';
import { ApiProblem } from '../server/problem';
import { keepRowsCoherent } from '../storage/coherent-memory';
import type { Sealer } from '../storage/crypto';
import { definitionOf, type ReactorDefinition, type RequestedReactorChange, type StoredReactor } from './reactor-model';
import { query, tx, type AnyUnitRunner, type Query } from '../storage/unit';

/** The vault's wipe: every reactor of the API goes (ReactorStore.forgetAll once committed). */
export const deleteAllReactors = query('delete all reactors', 'DELETE FROM reactors');
/** The change feed's channel of the reactors' changes, naming the reactor changed. */
const CHANNEL = 'reactors';
const everyReactor = query<ReactorRow>('every reactor', 'SELECT * FROM reactors ORDER BY created_at, id');
const oneReactor = query<ReactorRow>('reactor by id', 'SELECT * FROM reactors WHERE id = ?');
const insertReactor = query('insert reactor', `INSERT INTO reactors (id, name, definition, sealed, state, created_by, created_at)
  VALUES (@id, @name, @definition, @sealed, @state, @created_by, @created_at)`);
const updateReactor = query('update reactor', `UPDATE reactors SET name = @name, definition = @definition, sealed = @sealed, state = @state,
  modified_by = @modified_by, modified_at = @modified_at WHERE id = @id`);
const deleteReactor = query('delete reactor', 'DELETE FROM reactors WHERE id = @id');

interface ReactorRow {
  id: string;
  name: string;
  definition: string;
  sealed: Buffer;
  state: StoredReactor['state'];
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

type PlainPart = Pick<StoredReactor, 'application_id' | 'runtime' | 'live'>;
type SealedPart = Pick<StoredReactor, 'code' | 'configuration' | 'requested'>;

/** Why a saved definition cannot go live, or null when it can. */
export type ReactorSaveFailure = Omit<RequestedReactorChange, 'definition'> | null;

/** What a save leaves live: as for proxies, a change that cannot go live waits as `requested` beside the live version. */
function saved(old: StoredReactor | null, definition: ReactorDefinition, failure: ReactorSaveFailure): Pick<StoredReactor, 'state' | 'requested' | 'live'> & ReactorDefinition {
  if (failure === null) return { ...definition, state: 'active', requested: null, live: true };
  const requested = { definition, ...failure };
  return old?.live ? { ...definitionOf(old), state: 'failed', requested, live: true } : { ...definition, state: 'failed', requested, live: false };
}

const binding = (id: string) => `reactor:${id}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const deleted = (reactor: StoredReactor, cause: EventCause): RaisedEvent => ({ type: 'reactor.deleted', data: () => ({ reactor: { id: reactor.id } }), ...cause });

/** The reactor's event, in the unit of its write: its id, name and who made and changed it when. */
function changed(type: 'reactor.created' | 'reactor.updated', reactor: StoredReactor, cause: EventCause): RaisedEvent {
  const { id, name, created_at, created_by, modified_at, modified_by } = reactor;
  return { type, data: () => ({ reactor: { id, name, created_at, created_by, modified_at, modified_by } }), ...cause };
}

export class ReactorStore {
  private readonly byId = new Map<string, StoredReactor>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    /** Where the API's changes to reactors raise their events. */
    private readonly outbox: EventOutbox,
  ) {
    keepRowsCoherent(units, CHANNEL, oneReactor, (id, row) => this.settleRow(id, row), () => this.load());
  }

  /** Reads the API's reactors into memory: once at start, before anything looks one up, and again when notices were lost. */
  async load(): Promise<void> {
    const rows = await this.units.read(() => tx.all(everyReactor));
    this.forgetAll();
    for (const row of rows) this.byId.set(row.id, this.hydrate(row));
  }

  /** A row another replica changed, as the database now holds it. */
  private settleRow(id: string, row: ReactorRow | undefined): void {
    const held = this.byId.get(id);
    if (row) this.settle(this.hydrate(row));
    else if (held) this.settle(held, true);
  }

  private hydrate(row: ReactorRow): StoredReactor {
    const plain = JSON.parse(row.definition) as PlainPart;
    const sealed = this.sealer.openJson<SealedPart>(row.sealed, binding(row.id));
    return { ...row, ...plain, ...sealed };
  }

  private rowOf(reactor: StoredReactor) {
    const plain: PlainPart = { application_id: reactor.application_id, runtime: reactor.runtime, live: reactor.live };
    const sealed: SealedPart = { code: reactor.code, configuration: reactor.configuration, requested: reactor.requested };
    return { ...reactor, definition: JSON.stringify(plain), sealed: this.sealer.sealJson(sealed, binding(reactor.id)) };
  }

  /** The reactor's row written with its event, committed or rolled back together; a 404 when another writer deleted it. */
  private async write(statement: Query, reactor: StoredReactor, event: RaisedEvent | null): Promise<StoredReactor> {
    if ((await this.outbox.change(this.units, statement, this.rowOf(reactor), event, { channel: CHANNEL, id: reactor.id })) === 0) {
      this.settle(reactor, true);
      throw new ApiProblem(404, `Reactor ${reactor.id} not found`);
    }
    return this.settle(reactor);
  }

  /** The one place memory follows a committed change: the reactor as it now is, or gone. */
  private settle(reactor: StoredReactor, gone = false): StoredReactor {
    if (!gone) this.byId.set(reactor.id, reactor);
    // Only the reactor deleted: a file reactor may have taken its id meanwhile (an export).
    else if (this.byId.get(reactor.id)?.file === undefined) this.byId.delete(reactor.id);
    return reactor;
  }

  /** `cause`, here and in replace and delete: who asked, which the events name. */
  async create(definition: ReactorDefinition, createdBy: string, failure: ReactorSaveFailure, cause: EventCause): Promise<StoredReactor> {
    const reactor: StoredReactor = { ...saved(null, definition, failure), id: randomUUID(), created_by: createdBy, created_at: nowIso(), modified_by: null, modified_at: null };
    return await this.write(insertReactor, reactor, changed('reactor.created', reactor, cause));
  }

  /** 404 for an unknown id, and for one that is no UUID. */
  require(id: string): StoredReactor {
    const reactor = UUID.test(id) ? this.byId.get(id.toLowerCase()) : undefined;
    if (!reactor) throw new ApiProblem(404, `Reactor ${id} not found`);
    return reactor;
  }

  /** A reactor the API may change: 409 for one loaded from a file, whose file is the one place to change it. */
  requireWritable(id: string): StoredReactor {
    return writable('Reactor', this.require(id));
  }

  /** Puts a file reactor in, or its new version in place of the one before; it is held in memory only. */
  install(reactor: StoredReactor): void {
    this.byId.set(reactor.id, reactor);
  }

  /** Takes a file reactor out (its file is gone). */
  uninstall(id: string): void {
    if (this.byId.get(id)?.file) this.byId.delete(id);
  }

  async replace(id: string, definition: ReactorDefinition, modifiedBy: string, failure: ReactorSaveFailure, cause: EventCause): Promise<StoredReactor> {
    const old = this.requireWritable(id);
    const reactor: StoredReactor = { ...old, ...saved(old, definition, failure), modified_by: modifiedBy, modified_at: nowIso() };
    return await this.write(updateReactor, reactor, changed('reactor.updated', reactor, cause));
  }

  /**
   * The reactor as it stands now: a failed one's requested change goes live once the dependencies folder `dir` holds
   * what it lacked. Checked when the reactor is read or invoked, which is when a client can notice.
   */
  async settled(id: string, dir: string | null): Promise<StoredReactor> {
    const reactor = this.require(id);
    const runtime = reactor.requested?.definition.runtime;
    if (!reactor.requested || (runtime && missingDependencies(runtime, dir ?? undefined) !== null)) return reactor;
    return await this.write(updateReactor, { ...reactor, ...saved(reactor, reactor.requested.definition, null) }, null);
  }

  async delete(id: string, cause: EventCause): Promise<void> {
    const reactor = this.requireWritable(id);
    await this.outbox.change(this.units, deleteReactor, { id: reactor.id }, deleted(reactor, cause), { channel: CHANNEL, id: reactor.id });
    this.settle(reactor, true);
  }

  /** In creation order, filtered by id (any of them) and name (a case-insensitive part of it). */
  list(ids: readonly string[], name: string | undefined): StoredReactor[] {
    const part = name?.toLowerCase();
    return [...this.byId.values()].filter((r) => (ids.length === 0 || ids.includes(r.id)) && (part === undefined || r.name.toLowerCase().includes(part)));
  }

  /** Whether any reactor is stored (the engine then readies its code runtime at start). */
  holdsAny(): boolean {
    return this.byId.size > 0;
  }

  /** After the vault's wipe (deleteAllReactors): the reactors of the API go from memory; those of the folder's files stay. */
  forgetAll(): void {
    for (const reactor of [...this.byId.values()]) if (!reactor.file) this.byId.delete(reactor.id);
  }
}
