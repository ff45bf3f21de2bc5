import { type EventCause, type EventOutbox, SYSTEM_CAUSE } from '../events/event-outbox';
import type { Db } from '../storage/database';
import type { Sealer } from '../storage/crypto';
import { type AnyUnitRunner, isDuplicateKey, query, type SqlDialect, tx, type Unit, type UnitRunner } from '../storage/unit';
import { nowIso } from '../clock';
import { derivedTermHashes } from './search-terms';
import { TermBacklog } from './term-backlog';

/** A token as the vault holds it once unsealed. `data` is plaintext: it never leaves the engine unmasked by accident. */
export interface StoredToken {
  id: string;
  tenant_id: string;
  type: string;
  data: unknown;
  containers: string[];
  metadata: Record<string, string>;
  mask: unknown;
  fingerprint: string | null;
  fingerprint_expression: string | null;
  search_indexes: string[];
  expires_at: string | null;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

/**
 * One change to the vault. Writes are values, not calls, so a transaction can hold them back and apply them all
 * at commit (docs/api.md, Transactions) through the same `apply` as a direct write. `searchTerms` are the hashes of
 * the token's search indexes, rendered when the write was made; the terms derived from the token itself (card
 * details, metadata values) are added as it is applied. `cause` is the request that made the write, which its events
 * name when it lands (a transaction's at its commit); a write without one (the start-up seed's) raises none. `intent` is
 * the token intent a conversion's write came from.
 */
export type TokenWrite =
  | { op: 'create'; token: StoredToken; searchTerms: string[]; cause?: EventCause; intent?: ConvertedIntent }
  | { op: 'update'; token: StoredToken; searchTerms: string[]; cause?: EventCause; intent?: ConvertedIntent }
  | { op: 'delete'; id: string; cause?: EventCause };

/** The intent a conversion consumed, as its token-intent.converted event names it. */
export interface ConvertedIntent {
  id: string;
  type: string;
}

export interface TokenRow {
  id: string;
  tenant_id: string;
  type: string;
  containers: string;
  metadata: string;
  mask: string | null;
  fingerprint: string | null;
  fingerprint_expression: string | null;
  search_indexes: string;
  sealed: Buffer;
  expires_at: string | null;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

/** Live tokens, with `@now` from nowIso(): ISO strings compare in time order. */
export const LIVE = '(expires_at IS NULL OR expires_at > @now)';
/** The rest: expired, not yet purged. Few (the purge runs every minute) and indexed (tokens_expires). */
export const EXPIRED = '(expires_at IS NOT NULL AND expires_at <= @now)';
/**
 * How many tokens match `where`, live ones only: all of them less the expired. The live test reads every row, where
 * a count without it reads an index, and the expired are found through their own index. `matching`, a query of the
 * distinct ids of tokens that `where` matches, when one is known, is counted instead of the tokens.
 */
export const liveCountSql = (where: string, matching?: string, dialect: SqlDialect = 'sqlite') => {
  // PostgreSQL names every subquery in FROM, and its planner finds the index itself.
  const [alias, expired] = dialect === 'sqlite' ? ['', 'tokens INDEXED BY tokens_expires'] : [' AS matching', 'tokens'];
  return `SELECT (SELECT COUNT(*) FROM ${matching ? `(${matching})${alias}` : `tokens WHERE ${where}`}) - (SELECT COUNT(*) FROM ${expired} WHERE ${EXPIRED} AND ${where}) AS n`;
};

/** How long a decrypted token stays in memory after its decryption (use does not extend it), and how many are kept. */
const HOT_TOKEN_MS = 5_000;
const HOT_TOKENS = 2_000;

/** A token as its events show it (vendor-surfaces.md §5.5): every field but its data and mask. */
function tokenFields(token: StoredToken, updated: boolean): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    id: token.id,
    type: token.type,
    metadata: token.metadata,
    containers: token.containers,
    fingerprint: token.fingerprint,
    fingerprint_expression: token.fingerprint_expression,
    search_indexes: token.search_indexes,
    created_by: token.created_by,
    created_at: token.created_at,
    expires_at: token.expires_at,
  };
  if (updated) {
    fields.modified_by = token.modified_by;
    fields.modified_at = token.modified_at;
  }
  return fields;
}

/** The events of one write as it lands, in its transaction: what it did to the token, and the intent it converted. */
function* storeWritten(outbox: EventOutbox, write: TokenWrite, cause: EventCause): Unit<void> {
  if (write.op === 'delete') {
    yield* outbox.store({ type: 'token.deleted', data: () => ({ token: { id: write.id } }), ...cause });
    return;
  }
  const { token, intent } = write;
  yield* outbox.store({ type: write.op === 'create' ? 'token.created' : 'token.updated', data: () => ({ token: tokenFields(token, write.op === 'update') }), ...cause });
  if (intent) yield* outbox.store({ type: 'token-intent.converted', data: () => ({ token_intent: intent, token: { id: token.id, type: token.type } }), ...cause });
}

const live = (token: StoredToken, now: string) => token.expires_at === null || token.expires_at > now;

const writes = {
  insert: query('insert token', `INSERT INTO tokens (id, tenant_id, type, containers, metadata, mask, fingerprint,
      fingerprint_expression, search_indexes, sealed, expires_at, created_by, created_at, modified_by, modified_at)
    VALUES (@id, @tenant_id, @type, @containers, @metadata, @mask, @fingerprint, @fingerprint_expression,
      @search_indexes, @sealed, @expires_at, @created_by, @created_at, @modified_by, @modified_at)`),
  update: query('update token', `UPDATE tokens SET containers = @containers, metadata = @metadata, mask = @mask,
      fingerprint = @fingerprint, fingerprint_expression = @fingerprint_expression, search_indexes = @search_indexes,
      sealed = @sealed, expires_at = @expires_at, modified_by = @modified_by, modified_at = @modified_at
    WHERE id = @id`),
  delete: query('delete token', 'DELETE FROM tokens WHERE id = ?'),
  deleteTerms: query('delete search terms', 'DELETE FROM token_search_terms WHERE token_id = ?'),
  insertTerm: query('insert search term', 'INSERT OR IGNORE INTO token_search_terms (token_id, term_hash) VALUES (?, ?)', {
    postgres: 'INSERT INTO token_search_terms (token_id, term_hash) VALUES ($1, $2) ON CONFLICT DO NOTHING',
  }),
  exists: query('live token exists', `SELECT 1 FROM tokens WHERE id = @id AND ${LIVE}`),
  deleteExpiredOf: query<string>(
    'delete expired tokens of ids',
    `DELETE FROM tokens WHERE id IN (SELECT value FROM json_each(@ids)) AND ${EXPIRED} RETURNING id`,
    { pluck: true, postgres: `DELETE FROM tokens WHERE id IN (SELECT json_array_elements_text(@ids::json)) AND ${EXPIRED} RETURNING id` },
  ),
  deleteAll: query<string>('delete all tokens', 'DELETE FROM tokens RETURNING id', { pluck: true }),
  purgeExpired: query<string>('purge expired tokens', 'DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ? RETURNING id', { pluck: true }),
};

/** What writing tokens needs besides its statements: where their events go, and a token's row (its data sealed). */
export interface TokenWriting {
  readonly outbox: EventOutbox;
  readonly sealer: Sealer;
  row(token: StoredToken): TokenRow;
}

/** Whether a live token has the id: an expired token's id is free (see insertToken). */
export function* idTaken(id: string): Unit<boolean> {
  return (yield* tx.get(writes.exists, { id, now: nowIso() })) !== undefined;
}

/**
 * Removes the expired tokens among `ids` (null: all of them), each storing token.expired in the same transaction, the
 * engine's own act; answers how many. Its caller wakes the outbox's readers once committed.
 */
export function* removeExpired(outbox: EventOutbox, ids: readonly string[] | null): Unit<number> {
  const removed = ids === null ? yield* tx.all(writes.purgeExpired, [nowIso()]) : yield* tx.all(writes.deleteExpiredOf, { ids: JSON.stringify(ids), now: nowIso() });
  for (const id of removed) yield* outbox.store({ type: 'token.expired', data: () => ({ token: { id } }), ...SYSTEM_CAUSE });
  return removed.length;
}

/** The wipe's part: every token goes; answers their ids, for the store to forget once committed (TokenStore.forgetAll). */
export function* deleteAllTokens(): Unit<string[]> {
  return yield* tx.all(writes.deleteAll);
}

/**
 * An expired token is gone for every read (docs/api.md, Tokens), so its id is free again although the periodic purge
 * may not have removed its row yet. Only a taken id pays for the check.
 */
function* insertToken(writing: TokenWriting, row: TokenRow): Unit<void> {
  try {
    yield* tx.run(writes.insert, row);
  } catch (error) {
    if (!isDuplicateKey(error) || (yield* removeExpired(writing.outbox, [row.id])) === 0) throw error;
    yield* tx.run(writes.insert, row);
  }
}

function* applyOne(writing: TokenWriting, write: TokenWrite): Unit<void> {
  if (write.cause) yield* storeWritten(writing.outbox, write, write.cause);
  if (write.op === 'delete') {
    yield* tx.run(writes.delete, [write.id]);
    return;
  }
  const row = writing.row(write.token);
  if (write.op === 'create') yield* insertToken(writing, row);
  else {
    yield* tx.run(writes.update, row);
    yield* tx.run(writes.deleteTerms, [row.id]);
  }
  // Derived here, where every write lands (direct, grouped, tokenized, or a transaction's at its commit).
  for (const term of [...write.searchTerms, ...derivedTermHashes(writing.sealer, write.token)]) yield* tx.run(writes.insertTerm, [row.id, term]);
}

/**
 * The vault's write unit: `writes` in order, each raising its events in the same transaction. Every write to the vault
 * goes through it (direct, grouped, a transaction's at its commit); its caller then tells the store (TokenStore.settle).
 */
export function* applyTokenWrites(writing: TokenWriting, list: readonly TokenWrite[]): Unit<void> {
  for (const write of list) yield* applyOne(writing, write);
}

export const writtenIds = (list: readonly TokenWrite[]): string[] => list.map((w) => (w.op === 'delete' ? w.id : w.token.id));

/** Folds case in search as JavaScript does (SQLite's own lower() folds ASCII only): registered on the connection. */
export const UNICODE_LOWER = 'unicode_lower';

/**
 * The vault's tokens as the services see them, whichever database holds them. `get` and `getMany` stay synchronous
 * (the proxy's cache hits answer without waiting). `search` and `countMatching` take the filter the search builds
 * (vault/token-queries.ts) as SQL over `tokens`.
 */
export interface TokenStore {
  /** Runs the vault's transactional units. */
  readonly units: AnyUnitRunner;
  /** Where the vault's changes raise their events. */
  readonly outbox: EventOutbox;
  /** What the vault's write unit needs of this store. */
  readonly writing: TokenWriting;
  /** The tokens from before card and metadata search, whose terms are still to be derived. */
  readonly backlog: TermBacklog;
  /** Seals a token's data now, for a write of that token object to come (see SqliteTokenStore.sealAhead). */
  sealAhead(token: StoredToken): void;
  hydrate(row: TokenRow): StoredToken;
  openData(row: Pick<TokenRow, 'id' | 'sealed'>): unknown;
  /** Called with the ids of tokens a write may have changed, so caches of derived values can forget them. */
  onWrite(listener: (ids: readonly string[]) => void): void;
  /** Called with writes once they are in the vault: what the workbench's live token list hears of. */
  onApplied(listener: (writes: readonly TokenWrite[]) => void): void;
  /** Runs a unit that writes `writes` (among what else it does), then settles them. */
  runWrites<T>(writes: readonly TokenWrite[], start: () => Unit<T>): T;
  /** After a unit that wrote `writes` has ended (see SqliteTokenStore.settle). */
  settle(writes: readonly TokenWrite[], landed: boolean): void;
  /**
   * Runs `work`, whose store calls span stores not yet written as units (a conversion consumes its intent as its token
   * lands), in one transaction: all of it or none.
   */
  together<T>(work: () => T): T;
  /** A live (not expired) token, or undefined. */
  get(id: string): StoredToken | undefined;
  /** Many live tokens in one query, in the order of `ids`, undefined where none is live. */
  getMany(ids: readonly string[]): (StoredToken | undefined)[];
  idTaken(id: string): boolean;
  findByFingerprint(type: string, fingerprint: string): StoredToken | undefined;
  count(): number;
  countsByType(): { type: string; count: number; last_created_at: string }[];
  /** The tokens `where` (over `tokens`, with its `params`) matches, ordered and limited by `tail`, as rows. */
  search(where: string, params: object, tail: string, indexedByCreation?: boolean): TokenRow[];
  /** The count a search's `countSql` answers. */
  countMatching(countSql: string, params: object): number;
  /** Every live token, oldest first (an exported seed's). */
  liveByCreation(): StoredToken[];
  /** After a wipe (deleteAllTokens) has removed the tokens of `ids`: every cache forgets them. */
  forgetAll(ids: readonly string[]): void;
  purgeExpired(): number;
}

const liveByCreation = query<TokenRow>('live tokens by creation', `SELECT * FROM tokens WHERE ${LIVE} ORDER BY created_at, id`);

// The reads off the proxy's path, as units. SQLite is told which index to walk; PostgreSQL's planner chooses its own.
const reads = {
  byFingerprint: query<TokenRow>(
    'token by fingerprint',
    `SELECT * FROM tokens WHERE type = @type AND fingerprint = @fingerprint AND ${LIVE} ORDER BY created_at, id LIMIT 1`,
  ),
  count: query<{ n: number }>('live token count', liveCountSql('1'), {
    postgres: `SELECT (SELECT COUNT(*) FROM tokens) - (SELECT COUNT(*) FROM tokens WHERE ${EXPIRED}) AS n`,
  }),
  countByType: query<{ type: string; count: number }>(
    'token count by type',
    'SELECT type, COUNT(*) AS count FROM tokens INDEXED BY tokens_fingerprint GROUP BY type ORDER BY type',
    { postgres: 'SELECT type, COUNT(*) AS count FROM tokens GROUP BY type ORDER BY type' },
  ),
  expiredByType: query<{ type: string; count: number }>(
    'expired token count by type',
    `SELECT type, COUNT(*) AS count FROM tokens INDEXED BY tokens_expires WHERE ${EXPIRED} GROUP BY type`,
    { postgres: `SELECT type, COUNT(*) AS count FROM tokens WHERE ${EXPIRED} GROUP BY type` },
  ),
  newestOfType: query<{ created_at: string }>(
    'newest token of type',
    `SELECT created_at FROM tokens INDEXED BY tokens_created WHERE type = @type AND ${LIVE} ORDER BY created_at DESC LIMIT 1`,
    { postgres: `SELECT created_at FROM tokens WHERE type = @type AND ${LIVE} ORDER BY created_at DESC LIMIT 1` },
  ),
};

/** Per type, how many live tokens there are and when the newest was made (see SqliteTokenStore.countsByType). */
function* countsByType(now: string): Unit<{ type: string; count: number; last_created_at: string }[]> {
  const expired = new Map((yield* tx.all(reads.expiredByType, { now })).map(({ type, count }) => [type, count]));
  const counts: { type: string; count: number; last_created_at: string }[] = [];
  for (const { type, count } of yield* tx.all(reads.countByType)) {
    const live = count - (expired.get(type) ?? 0);
    const newest = live > 0 ? (yield* tx.get(reads.newestOfType, { type, now })) : undefined;
    if (newest) counts.push({ type, count: live, last_created_at: newest.created_at });
  }
  return counts;
}

export class SqliteTokenStore implements TokenStore {
  private readonly stmt;
  /**
   * Tokens decrypted in the last few seconds, so a client that detokenizes the same tokens request after request
   * (the proxy's common case) does not pay a decryption each time. Only that detokenizing lookup (getMany) fills it:
   * single reads seldom repeat, and would only hold more plaintext in memory. Memory only, bounded, evicted by every
   * write; never written anywhere. Callers treat returned tokens as read-only.
   */
  private readonly hot = new Map<string, { token: StoredToken; until: number }>();
  /** Data sealed before its write (see sealAhead), by token object; only ciphertext. */
  private readonly sealedAhead = new WeakMap<StoredToken, Buffer>();
  /** What the vault's write unit needs of this store. */
  readonly writing: TokenWriting;
  /** The tokens from before card and metadata search, whose terms are still to be derived. */
  readonly backlog: TermBacklog;

  constructor(
    private readonly db: Db,
    /** Runs the vault's transactional units. */
    readonly units: UnitRunner,
    private readonly sealer: Sealer,
    /** Where the vault's changes raise their events. */
    readonly outbox: EventOutbox,
  ) {
    this.backlog = new TermBacklog(db, sealer, (row) => this.openData(row));
    db.function(UNICODE_LOWER, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
    this.stmt = {
      get: db.prepare(`SELECT * FROM tokens WHERE id = @id AND ${LIVE}`),
      getMany: db.prepare(`SELECT * FROM tokens WHERE id IN (SELECT value FROM json_each(@ids)) AND ${LIVE}`),
    };
    this.writing = { outbox, sealer, row: (token) => this.toRow(token) };
  }

  /** Field by field, like hydrate: no copy of the whole token, whose plaintext `data` has no place in a row. */
  private toRow(token: StoredToken): TokenRow {
    return {
      id: token.id,
      tenant_id: token.tenant_id,
      type: token.type,
      containers: JSON.stringify(token.containers),
      metadata: JSON.stringify(token.metadata),
      mask: token.mask === null || token.mask === undefined ? null : JSON.stringify(token.mask),
      fingerprint: token.fingerprint,
      fingerprint_expression: token.fingerprint_expression,
      search_indexes: JSON.stringify(token.search_indexes),
      sealed: this.sealedAhead.get(token) ?? this.sealer.sealJson({ data: token.data }, token.id),
      expires_at: token.expires_at,
      created_by: token.created_by,
      created_at: token.created_at,
      modified_by: token.modified_by,
      modified_at: token.modified_at,
    };
  }

  /**
   * Seals a token's data now, for a write of that token object to come: sealing is the costliest part of a create, and
   * a large batch written in one transaction (a seed) would otherwise seal all of it while holding the engine.
   */
  sealAhead(token: StoredToken): void {
    this.sealedAhead.set(token, this.sealer.sealJson({ data: token.data }, token.id));
  }

  /** Field by field, not by spreading the row: a literal gets one fixed shape, a spread copies property by property. */
  hydrate(row: TokenRow): StoredToken {
    return {
      id: row.id,
      tenant_id: row.tenant_id,
      type: row.type,
      containers: JSON.parse(row.containers) as string[],
      metadata: JSON.parse(row.metadata) as Record<string, string>,
      mask: row.mask === null ? null : JSON.parse(row.mask),
      fingerprint: row.fingerprint,
      fingerprint_expression: row.fingerprint_expression,
      search_indexes: JSON.parse(row.search_indexes) as string[],
      expires_at: row.expires_at,
      created_by: row.created_by,
      created_at: row.created_at,
      modified_by: row.modified_by,
      modified_at: row.modified_at,
      data: this.openData(row),
    };
  }

  openData(row: Pick<TokenRow, 'id' | 'sealed'>): unknown {
    return this.sealer.openJson<{ data: unknown }>(row.sealed, row.id).data;
  }

  private readonly writeListeners: ((ids: readonly string[]) => void)[] = [];

  /** Called with the ids of tokens a write may have changed, so caches of derived values can forget them. */
  onWrite(listener: (ids: readonly string[]) => void): void {
    this.writeListeners.push(listener);
  }

  private readonly appliedListeners: ((writes: readonly TokenWrite[]) => void)[] = [];

  /** Called with writes once they are in the vault: what the workbench's live token list hears of. */
  onApplied(listener: (writes: readonly TokenWrite[]) => void): void {
    this.appliedListeners.push(listener);
  }

  /** Runs a unit that writes `writes` (among what else it does), then settles them. */
  runWrites<T>(writes: readonly TokenWrite[], start: () => Unit<T>): T {
    let landed = false;
    try {
      const value = this.units.run(start);
      landed = true;
      return value;
    } finally {
      this.settle(writes, landed);
    }
  }

  /**
   * After a unit that wrote `writes` has ended: caches forget their tokens, also after a failure (forgetting is always
   * safe, and an enclosing transaction may still roll back), and once they landed the listeners hear of them.
   */
  settle(writes: readonly TokenWrite[], landed: boolean): void {
    const ids = writtenIds(writes);
    for (const id of ids) this.hot.delete(id);
    for (const listener of this.writeListeners) listener(ids);
    if (!landed) return;
    this.outbox.committed();
    for (const listener of this.appliedListeners) listener(writes);
  }

  /**
   * No reordering on a hit: an entry lives HOT_TOKEN_MS from its decryption whatever its use, so insertion order is
   * already expiry order, and evicting the oldest is evicting the first to expire.
   */
  private hotGet(id: string, now: string, nowMs: number): StoredToken | undefined {
    const entry = this.hot.get(id);
    if (!entry) return undefined;
    if (entry.until >= nowMs && live(entry.token, now)) return entry.token;
    this.hot.delete(id);
    return undefined;
  }

  private hotSet(token: StoredToken): StoredToken {
    this.hot.set(token.id, { token, until: Date.now() + HOT_TOKEN_MS });
    if (this.hot.size > HOT_TOKENS) this.hot.delete(this.hot.keys().next().value as string);
    return token;
  }

  /** A live (not expired) token, or undefined. */
  get(id: string): StoredToken | undefined {
    const now = nowIso();
    const hot = this.hotGet(id, now, Date.now());
    if (hot) return hot;
    const row = this.stmt.get.get({ id, now }) as TokenRow | undefined;
    if (!row) this.foundMissing([id]);
    return row && this.hydrate(row);
  }

  /**
   * Ids a read found no live token of: any of them found expired is removed now, so that its token.expired is raised
   * when a client first notices (once: the row goes with it). Only when some subscription wants the event, so a miss
   * costs nothing more otherwise.
   */
  private foundMissing(ids: readonly string[]): void {
    if (!this.outbox.wants('token.expired')) return;
    this.units.run(() => removeExpired(this.outbox, ids));
    this.outbox.committed();
  }

  /** Whether a live token has the id: an expired token's id is free (see insert). */
  idTaken(id: string): boolean {
    return this.units.read(() => idTaken(id));
  }

  findByFingerprint(type: string, fingerprint: string): StoredToken | undefined {
    const row = this.units.read(() => tx.get(reads.byFingerprint, { type, fingerprint, now: nowIso() }));
    return row && this.hydrate(row);
  }

  /**
   * Many live tokens in one query (the proxy's and detokenize's lookup): the token of each id, in the order of `ids`
   * (which must not repeat one), undefined where none is live. An array, not a Map: its callers walk the ids in order,
   * and a Map per request would allocate its tables for nothing.
   */
  getMany(ids: readonly string[]): (StoredToken | undefined)[] {
    const found: (StoredToken | undefined)[] = [];
    const now = nowIso();
    const nowMs = Date.now();
    let cold: Map<string, number> | undefined;
    for (let i = 0; i < ids.length; i++) {
      const hot = this.hotGet(ids[i], now, nowMs);
      found.push(hot);
      if (!hot) (cold ??= new Map()).set(ids[i], i);
    }
    if (!cold) return found;
    const rows = this.stmt.getMany.all({ ids: JSON.stringify([...cold.keys()]), now }) as TokenRow[];
    for (const row of rows) found[cold.get(row.id)!] = this.hotSet(this.hydrate(row));
    if (rows.length < cold.size) this.foundMissing([...cold.keys()].filter((id) => found[cold.get(id)!] === undefined));
    return found;
  }

  count(): number {
    return this.units.read(() => tx.get(reads.count, { now: nowIso() }))!.n;
  }

  /**
   * Per type, how many live tokens there are and when the newest was made (the usage report's). The counts read the
   * (type, fingerprint) index rather than the rows, less the expired found through their own index; each type's newest
   * is found walking the creation index from its end.
   */
  countsByType(): { type: string; count: number; last_created_at: string }[] {
    return this.units.read(() => countsByType(nowIso()));
  }

  together<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  /** Prepared per call: a search's SQL varies with its filter, and a cache of every shape would only grow. */
  search(where: string, params: object, tail: string, indexedByCreation = false): TokenRow[] {
    return this.db.prepare(`SELECT * FROM tokens${indexedByCreation ? ' INDEXED BY tokens_created' : ''} WHERE ${where} ${tail}`).all(params) as TokenRow[];
  }

  countMatching(countSql: string, params: object): number {
    return (this.db.prepare(countSql).get(params) as { n: number }).n;
  }

  liveByCreation(): StoredToken[] {
    return this.units.read(() => tx.all(liveByCreation, { now: nowIso() })).map((row) => this.hydrate(row));
  }

  /** After a wipe (deleteAllTokens) has removed the tokens of `ids`: every cache forgets them. */
  forgetAll(ids: readonly string[]): void {
    this.hot.clear();
    for (const listener of this.writeListeners) listener(ids);
  }

  purgeExpired(): number {
    const removed = this.units.run(() => removeExpired(this.outbox, null));
    this.outbox.committed();
    return removed;
  }
}
