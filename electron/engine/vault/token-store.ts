import { type EventCause, type EventOutbox, SYSTEM_CAUSE } from '../events/event-outbox';
import type { Sealer } from '../storage/crypto';
import { type Answer, answerOf, type AnyUnitRunner, afterRun, isDuplicateKey, query, type SqlDialect, tx, type Unit, type UnitRunner } from '../storage/unit';
import { nowIso } from '../clock';
import { derivedTermHashes } from './search-terms';
import { insertTerm, TermBacklog } from './term-backlog';

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
  | {
      op: 'update';
      token: StoredToken;
      searchTerms: string[];
      cause?: EventCause;
      intent?: ConvertedIntent;
      /** The version (modified_at, else created_at) the update was built on: it lands only over that version. */
      seen?: string;
    }
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
  updateSeen: query('update token seen', `UPDATE tokens SET containers = @containers, metadata = @metadata, mask = @mask,
      fingerprint = @fingerprint, fingerprint_expression = @fingerprint_expression, search_indexes = @search_indexes,
      sealed = @sealed, expires_at = @expires_at, modified_by = @modified_by, modified_at = @modified_at
    WHERE id = @id AND COALESCE(modified_at, created_at) = @seen`),
  delete: query('delete token', 'DELETE FROM tokens WHERE id = ?'),
  deleteTerms: query('delete search terms', 'DELETE FROM token_search_terms WHERE token_id = ?'),
  exists: query('live token exists', `SELECT 1 FROM tokens WHERE id = @id AND ${LIVE}`),
  deleteExpiredOf: query<string>(
    'delete expired tokens of ids',
    `DELETE FROM tokens WHERE id IN (SELECT value FROM json_each(@ids)) AND ${EXPIRED} RETURNING id`,
    { pluck: true, postgres: `DELETE FROM tokens WHERE id IN (SELECT json_array_elements_text(@ids::json)) AND ${EXPIRED} RETURNING id` },
  ),
  deleteAll: query<string>('delete all tokens', 'DELETE FROM tokens RETURNING id', { pluck: true }),
  purgeExpired: query<string>('purge expired tokens', 'DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ? RETURNING id', { pluck: true }),
};

/**
 * The change feed's channels of the vault: each token written, deleted or expired is named on TOKENS (the whole vault
 * on WIPED), so that every replica's caches of it forget it (TokenStore's hot tokens, the service's masked data).
 */
export const TOKEN_CHANGES = { TOKENS: 'tokens', WIPED: 'tokens-wiped' } as const;

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

/** The live tokens among `ids` as stored (their data sealed; `hydrate` opens them), in no particular order. */
export function* liveTokenRows(ids: readonly string[]): Unit<TokenRow[]> {
  return yield* tx.all(reads.byIds, { ids: JSON.stringify(ids), now: nowIso() });
}

/** Whether a live token of `type` has the fingerprint. */
export function* fingerprintTaken(type: string, fingerprint: string): Unit<boolean> {
  return (yield* tx.get(reads.byFingerprint, { type, fingerprint, now: nowIso() })) !== undefined;
}

/**
 * Removes the expired tokens among `ids` (null: all of them), each storing token.expired in the same transaction, the
 * engine's own act; answers how many. Its caller wakes the outbox's readers once committed.
 */
export function* removeExpired(outbox: EventOutbox, ids: readonly string[] | null): Unit<number> {
  const removed = ids === null ? yield* tx.all(writes.purgeExpired, [nowIso()]) : yield* tx.all(writes.deleteExpiredOf, { ids: JSON.stringify(ids), now: nowIso() });
  for (const id of removed) {
    yield* outbox.store({ type: 'token.expired', data: () => ({ token: { id } }), ...SYSTEM_CAUSE });
    yield* tx.notify(TOKEN_CHANGES.TOKENS, id);
  }
  return removed.length;
}

/** The wipe's part: every token goes; answers their ids (the store forgets every token once committed, TokenStore.forgetAll). */
export function* deleteAllTokens(): Unit<string[]> {
  const ids = yield* tx.all(writes.deleteAll);
  yield* tx.notify(TOKEN_CHANGES.WIPED, 'all');
  return ids;
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

/**
 * An update built on a version of the token that another request (on this replica or another) changed meanwhile:
 * nothing of its unit lands, and the update is built again on what is stored now.
 */
export class TokenChanged extends Error {
  constructor(readonly id: string) {
    super(`Token ${id} was changed by another request meanwhile`);
  }
}

function* applyOne(writing: TokenWriting, write: TokenWrite): Unit<void> {
  if (write.cause) yield* storeWritten(writing.outbox, write, write.cause);
  yield* tx.notify(TOKEN_CHANGES.TOKENS, write.op === 'delete' ? write.id : write.token.id);
  if (write.op === 'delete') {
    yield* tx.run(writes.delete, [write.id]);
    return;
  }
  const row = writing.row(write.token);
  if (write.op === 'create') yield* insertToken(writing, row);
  else {
    if (write.seen === undefined) yield* tx.run(writes.update, row);
    else if ((yield* tx.run(writes.updateSeen, { ...row, seen: write.seen })).changes === 0) throw new TokenChanged(row.id);
    yield* tx.run(writes.deleteTerms, [row.id]);
  }
  // Derived here, where every write lands (direct, grouped, tokenized, or a transaction's at its commit).
  for (const term of [...write.searchTerms, ...derivedTermHashes(writing.sealer, write.token)]) yield* tx.run(insertTerm, [row.id, term]);
}

/**
 * The vault's write unit: `writes` in order, each raising its events in the same transaction. Every write to the vault
 * goes through it (direct, grouped, a transaction's at its commit); its caller then tells the store (TokenStore.settle).
 */
export function* applyTokenWrites(writing: TokenWriting, list: readonly TokenWrite[]): Unit<void> {
  for (const write of list) yield* applyOne(writing, write);
}

export const writtenIds = (list: readonly TokenWrite[]): string[] => list.map((w) => (w.op === 'delete' ? w.id : w.token.id));

/**
 * The vault's tokens as the services see them, over either database: `R`, the runner, says whether its reads answer
 * at once (SQLite's) or a Promise (PostgreSQL's). `get` and `getMany` answer from memory when every token asked for is
 * there, without waiting on either. `search` and `countMatching` take the filter the search builds
 * (vault/token-queries.ts) as SQL over `tokens`, in the runner's dialect.
 */
export interface TokenStore<R extends AnyUnitRunner = UnitRunner> {
  /** Runs the vault's transactional units (the services await it, whichever it is). */
  readonly units: R;
  /** Where the vault's changes raise their events. */
  readonly outbox: EventOutbox;
  /** What the vault's write unit needs of this store. */
  readonly writing: TokenWriting;
  /** The tokens from before card and metadata search, whose terms are still to be derived. */
  readonly backlog: TermBacklog;
  /** Seals a token's data now, for a write of that token object to come (see UnitTokenStore.sealAhead). */
  sealAhead(token: StoredToken): void;
  hydrate(row: TokenRow): StoredToken;
  openData(row: Pick<TokenRow, 'id' | 'sealed'>): unknown;
  /** Called with the ids of tokens a write may have changed (null: every token), so caches of derived values can forget them. */
  onWrite(listener: (ids: readonly string[] | null) => void): void;
  /** Called with writes once they are in the vault: what the workbench's live token list hears of. */
  onApplied(listener: (writes: readonly TokenWrite[]) => void): void;
  /** Runs a unit that writes `writes` (among what else it does), then settles them. */
  runWrites<T>(writes: readonly TokenWrite[], start: () => Unit<T>): Answer<R, T>;
  /** After a unit that wrote `writes` has ended (see UnitTokenStore.settle). */
  settle(writes: readonly TokenWrite[], landed: boolean): void;
  /** A live (not expired) token, or undefined. */
  get(id: string): Answer<R, StoredToken | undefined> | StoredToken;
  /** Many live tokens in one query, in the order of `ids`, undefined where none is live. */
  getMany(ids: readonly string[]): Answer<R, (StoredToken | undefined)[]> | (StoredToken | undefined)[];
  idTaken(id: string): Answer<R, boolean>;
  findByFingerprint(type: string, fingerprint: string): Answer<R, StoredToken | undefined>;
  count(): Answer<R, number>;
  countsByType(): Answer<R, { type: string; count: number; last_created_at: string }[]>;
  /** The tokens `where` (over `tokens`, with its `params`) matches, ordered and limited by `tail`, as rows. */
  search(where: string, params: object, tail: string, indexedByCreation?: boolean): Answer<R, TokenRow[]>;
  /** The count a search's `countSql` answers. */
  countMatching(countSql: string, params: object): Answer<R, number>;
  /** Every live token, oldest first (an exported seed's). */
  liveByCreation(): Answer<R, StoredToken[]>;
  /** After a wipe (deleteAllTokens), here or on another replica: every cache forgets every token. */
  forgetAll(): void;
  purgeExpired(): Answer<R, number>;
}

const liveByCreation = query<TokenRow>('live tokens by creation', `SELECT * FROM tokens WHERE ${LIVE} ORDER BY created_at, id`);

// The reads as units. SQLite is told which index to walk; PostgreSQL's planner chooses its own.
const reads = {
  byId: query<TokenRow>('token by id', `SELECT * FROM tokens WHERE id = @id AND ${LIVE}`),
  byIds: query<TokenRow>('tokens by ids', `SELECT * FROM tokens WHERE id IN (SELECT value FROM json_each(@ids)) AND ${LIVE}`, {
    postgres: `SELECT * FROM tokens WHERE id IN (SELECT json_array_elements_text(@ids::json)) AND ${LIVE}`,
  }),
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

/** Per type, how many live tokens there are and when the newest was made (see UnitTokenStore.countsByType). */
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

/**
 * The vault's one token store, over either runner: every statement is a query its runner prepares (SQLite's once per
 * connection, as inline statements were), so the same class holds the tokens in the embedded file and in a shared
 * PostgreSQL database. Its memory (hot tokens) forgets what the change feed names, whichever replica changed it.
 */
export class UnitTokenStore<R extends AnyUnitRunner = AnyUnitRunner> implements TokenStore<R> {
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
    /** Runs the vault's transactional units. */
    readonly units: R,
    private readonly sealer: Sealer,
    /** Where the vault's changes raise their events. */
    readonly outbox: EventOutbox,
  ) {
    this.backlog = new TermBacklog(units, sealer, (row) => this.openData(row));
    this.writing = { outbox, sealer, row: (token) => this.toRow(token) };
    // Every replica's writes, this one's included (settle has already forgotten those; forgetting twice is free).
    units.changes.listen(TOKEN_CHANGES.TOKENS, (id) => this.forget([id]));
    units.changes.listen(TOKEN_CHANGES.WIPED, () => this.forgetAll());
    // Notices were lost (the notify connection was down): any token held may have changed meanwhile.
    units.changes.onResync(() => this.forgetAll());
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

  private readonly writeListeners: ((ids: readonly string[] | null) => void)[] = [];

  /** Called with the ids of tokens a write may have changed (null: every token), so caches of derived values can forget them. */
  onWrite(listener: (ids: readonly string[] | null) => void): void {
    this.writeListeners.push(listener);
  }

  private readonly appliedListeners: ((writes: readonly TokenWrite[]) => void)[] = [];

  /** Called with writes once they are in the vault: what the workbench's live token list hears of. */
  onApplied(listener: (writes: readonly TokenWrite[]) => void): void {
    this.appliedListeners.push(listener);
  }

  /** Runs a unit that writes `writes` (among what else it does), then settles them. */
  runWrites<T>(writes: readonly TokenWrite[], start: () => Unit<T>): Answer<R, T> {
    let answer: T | Promise<T>;
    try {
      answer = this.units.run(start);
    } catch (error) {
      this.settle(writes, false);
      throw error;
    }
    if (!(answer instanceof Promise)) {
      this.settle(writes, true);
      return answer as Answer<R, T>;
    }
    return answer.then(
      (value) => {
        this.settle(writes, true);
        return value;
      },
      (error: unknown) => {
        this.settle(writes, false);
        throw error;
      },
    ) as Answer<R, T>;
  }

  /**
   * After a unit that wrote `writes` has ended: caches forget their tokens, also after a failure (forgetting is always
   * safe, and an enclosing transaction may still roll back), and once they landed the listeners hear of them.
   */
  settle(writes: readonly TokenWrite[], landed: boolean): void {
    this.forget(writtenIds(writes));
    if (!landed) return;
    this.outbox.committed();
    for (const listener of this.appliedListeners) listener(writes);
  }

  /** The one place memory forgets tokens: after this store's writes, and when the change feed names them. */
  private forget(ids: readonly string[]): void {
    for (const id of ids) this.hot.delete(id);
    for (const listener of this.writeListeners) listener(ids);
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
  get(id: string): Answer<R, StoredToken | undefined> | StoredToken {
    const now = nowIso();
    const hot = this.hotGet(id, now, Date.now());
    if (hot) return hot;
    return answerOf<R, TokenRow | undefined, StoredToken | undefined>(this.units.read(() => tx.get(reads.byId, { id, now })), (row) => {
      if (!row) this.foundMissing([id]);
      return row && this.hydrate(row);
    });
  }

  /**
   * Ids a read found no live token of: any of them found expired is removed now, so that its token.expired is raised
   * when a client first notices (once: the row goes with it). Only when some subscription wants the event, so a miss
   * costs nothing more otherwise. Not awaited over PostgreSQL: the read's answer stands, and the purge removes what
   * this could not.
   */
  private foundMissing(ids: readonly string[]): void {
    if (!this.outbox.wants('token.expired')) return;
    const removed = afterRun(this.units.run(() => removeExpired(this.outbox, ids)), () => this.outbox.committed());
    if (removed instanceof Promise) removed.catch(() => undefined);
  }

  /** Whether a live token has the id: an expired token's id is free (see insert). */
  idTaken(id: string): Answer<R, boolean> {
    return this.units.read(() => idTaken(id)) as Answer<R, boolean>;
  }

  findByFingerprint(type: string, fingerprint: string): Answer<R, StoredToken | undefined> {
    return answerOf<R, TokenRow | undefined, StoredToken | undefined>(
      this.units.read(() => tx.get(reads.byFingerprint, { type, fingerprint, now: nowIso() })),
      (row) => row && this.hydrate(row),
    );
  }

  /**
   * Many live tokens in one query (the proxy's and detokenize's lookup): the token of each id, in the order of `ids`
   * (which must not repeat one), undefined where none is live. An array, not a Map: its callers walk the ids in order,
   * and a Map per request would allocate its tables for nothing.
   */
  getMany(ids: readonly string[]): Answer<R, (StoredToken | undefined)[]> | (StoredToken | undefined)[] {
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
    const wanted = cold;
    return answerOf<R, TokenRow[], (StoredToken | undefined)[]>(this.units.read(() => tx.all(reads.byIds, { ids: JSON.stringify([...wanted.keys()]), now })), (rows) => {
      for (const row of rows) found[wanted.get(row.id)!] = this.hotSet(this.hydrate(row));
      if (rows.length < wanted.size) this.foundMissing([...wanted.keys()].filter((id) => found[wanted.get(id)!] === undefined));
      return found;
    });
  }

  count(): Answer<R, number> {
    return answerOf<R, { n: number } | undefined, number>(this.units.read(() => tx.get(reads.count, { now: nowIso() })), (row) => row!.n);
  }

  /**
   * Per type, how many live tokens there are and when the newest was made (the usage report's). The counts read the
   * (type, fingerprint) index rather than the rows, less the expired found through their own index; each type's newest
   * is found walking the creation index from its end.
   */
  countsByType(): Answer<R, { type: string; count: number; last_created_at: string }[]> {
    return this.units.read(() => countsByType(nowIso())) as Answer<R, { type: string; count: number; last_created_at: string }[]>;
  }

  /**
   * Built per call (an ad hoc query, never kept): a search's SQL varies with its filter, and a cache of every shape
   * would only grow. `where` is in the runner's dialect (TokenQueries'). SQLite is told to walk the creation-order index
   * when asked; PostgreSQL's planner finds it itself.
   */
  search(where: string, params: object, tail: string, indexedByCreation = false): Answer<R, TokenRow[]> {
    const text = (indexed: boolean) => `SELECT * FROM tokens${indexed ? ' INDEXED BY tokens_created' : ''} WHERE ${where} ${tail}`;
    const statement = query<TokenRow>('token search', text(indexedByCreation), { postgres: text(false), adHoc: true });
    return this.units.read(() => tx.all(statement, params)) as Answer<R, TokenRow[]>;
  }

  countMatching(countSql: string, params: object): Answer<R, number> {
    const counted = query<{ n: number }>('token search count', countSql, { postgres: countSql, adHoc: true });
    return answerOf<R, { n: number } | undefined, number>(this.units.read(() => tx.get(counted, params)), (row) => row!.n);
  }

  liveByCreation(): Answer<R, StoredToken[]> {
    return answerOf<R, TokenRow[], StoredToken[]>(this.units.read(() => tx.all(liveByCreation, { now: nowIso() })), (rows) => rows.map((row) => this.hydrate(row)));
  }

  /** After a wipe (deleteAllTokens), here or on another replica: every cache forgets every token. */
  forgetAll(): void {
    this.hot.clear();
    for (const listener of this.writeListeners) listener(null);
  }

  purgeExpired(): Answer<R, number> {
    return answerOf<R, number, number>(this.units.run(() => removeExpired(this.outbox, null)), (removed) => {
      this.outbox.committed();
      return removed;
    });
  }
}
