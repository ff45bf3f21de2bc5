import { randomUUID } from 'node:crypto';
import type { Caller } from '../access/authenticator';
import type { EventCause } from '../events/event-outbox';
import type { Permission, Transform } from '../access/permissions';
import { ExpressionError, type ExpressionEngine, ExpressionOverBudget, INTENT_KEY_PREFIX, type TokenRecord } from '../expressions';
import { LruCache } from '../lru-cache';
import { ApiProblem, validationProblem } from '../server/problem';
import { cardDetails, isCardType, type CardDetails } from './card-details';
import { normalizeContainer, validateContainer } from '../access/containers';
import type { Sealer } from '../storage/crypto';
import { type Answer, answerOf, type AnyUnitRunner, bothOf, isDuplicateKey, tx, type Unit, type UnitRunner } from '../storage/unit';
import { mergePatch } from './merge-patch';
import { termHash, type TermField } from './search-terms';
import { goneIntentDetail, type IntentSource, type LiveIntent } from './intent-source';
import { isConversion, type CreateTokenRequest, type IntentConversionRequest, type UpdateTokenRequest } from './token-requests';
import { raiseRead } from './token-events';
import {
  applyTokenWrites,
  fingerprintTaken,
  idTaken,
  TokenChanged,
  writtenIds,
  type ConvertedIntent,
  type StoredToken,
  type TokenRow,
  type TokenStore,
  type TokenWrite,
} from './token-store';
import { nowIso } from '../clock';
import { validateTokenId } from './token-id';
import {
  defaultContainer,
  defaultFingerprintExpression,
  defaultMask,
  defaultSearchIndexes,
  validateTokenData,
  type TokenType,
} from './token-types';

export type CreateWrite = Extract<TokenWrite, { op: 'create' }>;

/** A write that lands a token (a create, or the update of a duplicate), never a delete. */
type LandedWrite = Exclude<TokenWrite, { op: 'delete' }>;

/** The most token creates one expression budget covers: a POST /tokenize request's, one slice of a seed file's. */
export const TOKENS_PER_BUDGET = 100;
/** How many times an update is built again when other requests keep changing its token first. */
const UPDATE_ATTEMPTS = 5;
/** The 400 of a POST /tokenize past that many tokens. */
export const TOO_MANY_TOKENS = `A tokenize request creates at most ${TOKENS_PER_BUDGET} tokens`;

/** Token creates whose templates share one expression budget (see TokenService.inTokenGroup). */
export interface TokenGroup {
  /** prepareCreate within the group's budget; the create past TOKENS_PER_BUDGET is the group's 400. */
  prepare(input: CreateTokenRequest, caller: Caller): { token: StoredToken; transform: Transform };
  /**
   * The write that stores a prepared token, ready to be applied later (a seed's, after all its slices): its search
   * terms rendered within the group's budget, its data sealed, so that applying it is only the insert.
   */
  write(token: StoredToken): CreateWrite;
}

/** A token as a client sees it: `data` after the caller's transform, plus the card summary for card types. */
export interface TokenView {
  id: string;
  tenant_id: string;
  type: string;
  data?: unknown;
  mask: unknown;
  containers: string[];
  metadata?: Record<string, string>;
  search_indexes: string[];
  fingerprint: string | null;
  fingerprint_expression: string | null;
  expires_at: string | null;
  card?: CardDetails;
  created_by: string | null;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  _extras?: { deduplicated: boolean };
}

/**
 * What the tenant's settings decide of token creates (docs/api.md, Tenant): read at each create, so a change applies
 * from the next request.
 */
export interface TokenDefaults {
  /** `deduplicate_token` when a create leaves it out. */
  deduplicate: boolean;
  /** A duplicate create merges its data into the token it matches, instead of answering that token as it is. */
  updateDuplicate: boolean;
  /** A token without its own fingerprint expression gets its type's. */
  fingerprint: boolean;
}

/** The tenant settings' defaults. */
export const TOKEN_DEFAULTS: TokenDefaults = { deduplicate: false, updateDuplicate: false, fingerprint: true };

/** Where the tokens a request created, read or used are counted (the usage report's monthly active tokens). */
export interface TokenActivity {
  mark(id: string): void;
}

/**
 * What a write sees of the vault before it is made: the token it changes, whether an id is taken, a duplicate; at once
 * over SQLite, a Promise over PostgreSQL.
 */
export type TokenReader = Pick<TokenStore<AnyUnitRunner>, 'get' | 'idTaken' | 'findByFingerprint'>;

/** The vault as a create's synchronous preparation reads it (see settled): every read answered. */
interface PassReader {
  get(id: string): StoredToken | undefined;
  idTaken(id: string): boolean;
  findByFingerprint(type: string, fingerprint: string): StoredToken | undefined;
  liveIntents(ids: readonly string[]): LiveIntent[];
  /** A transaction's view, or a batch's: it knows ids the table does not, so a create checks them itself. */
  readonly staged: boolean;
}

/**
 * Runs `pass`, which prepares writes synchronously from what it reads of `reader` and `intents`. Over SQLite every read
 * answers at once, so the pass runs once and its caller starts its unit in the same turn. A read that answers a
 * Promise (PostgreSQL) answers "none" for now; that pass's result or error is dropped, the reads are awaited, and the
 * pass runs again with their answers, until one reads nothing new.
 */
function settled<T>(reader: TokenReader, intents: IntentSource, staged: boolean, pass: (vault: PassReader) => T): T | Promise<T> {
  const answers = new Map<string, unknown>();
  let waiting: Promise<unknown>[] = [];
  const answer = <A>(key: string, read: () => A | Promise<A>): A | undefined => {
    if (answers.has(key)) return answers.get(key) as A;
    const value = read();
    if (!(value instanceof Promise)) return value;
    waiting.push(value.then((known) => answers.set(key, known)));
    return undefined;
  };
  const vault: PassReader = {
    staged,
    get: (id) => answer(`get\u0000${id}`, () => reader.get(id)),
    idTaken: (id) => answer(`taken\u0000${id}`, () => reader.idTaken(id)) ?? false,
    findByFingerprint: (type, fingerprint) => answer(`fingerprint\u0000${type}\u0000${fingerprint}`, () => reader.findByFingerprint(type, fingerprint)),
    liveIntents: (ids) => answer(`intents\u0000${ids.join('\u0000')}`, () => intents.liveMany(ids)) ?? [],
  };
  const attempt = (): T | Promise<T> => {
    let value: T | undefined;
    try {
      value = pass(vault);
    } catch (error) {
      if (waiting.length === 0) throw error;
    }
    if (waiting.length === 0) return value as T;
    const reads = waiting;
    waiting = [];
    return Promise.all(reads).then(attempt);
  };
  return attempt();
}

/** What a create's preparation answers, with the writes it would land. */
interface Prepared<T> {
  value: T;
  writes: TokenWrite[];
  /** The fingerprints its deduplication looked up in the vault and found no token of. */
  free: FreeFingerprint[];
}

interface FreeFingerprint {
  type: string;
  fingerprint: string;
}

/** A fingerprint found free when a create was prepared has a token by the time it lands: the create is prepared again. */
class FingerprintTakenMeanwhile extends Error {}

/**
 * `unit`, once no token has any of the `free` fingerprints: each is locked first, so that creates of one fingerprint
 * on other replicas take turns with this one, and the one that comes second finds the first's token.
 */
function* withFreeFingerprints(free: readonly FreeFingerprint[], unit: Unit<void>): Unit<void> {
  yield* tx.lock([...new Set(free.map(({ type, fingerprint }) => `fingerprint:${type}:${fingerprint}`))].sort());
  for (const { type, fingerprint } of free) if (yield* fingerprintTaken(type, fingerprint)) throw new FingerprintTakenMeanwhile();
  yield* unit;
}

/** Tokens whose id the vault made (prepareCreate): new, so no read need check that it is taken. */
const madeIds = new WeakSet<StoredToken>();

/** No intent named: one array for every detokenization without any. */
const NO_INTENTS: LiveIntent[] = [];

/**
 * Where token writes go. Direct writes apply at once; the transactions feature supplies a writer that holds them in
 * an open transaction instead (docs/api.md, Transactions), and checks its locks on every write.
 */
export interface TokenWriter {
  /** Where writes in `context` go, found (a transaction required open) before the write is prepared. */
  target(context: WriteContext): Promise<WriteTarget>;
  /** The direct write unit (a context without a transaction): what its target runs, for a larger unit to compose. */
  direct(writes: readonly TokenWrite[]): Unit<void>;
}

/** Where the writes of one request go. */
export interface WriteTarget {
  /** The vault as a write there sees it: inside a transaction, its own earlier writes included. */
  readonly reader: TokenReader;
  /** The unit that lands them: applied, or staged in the transaction. */
  unit(writes: readonly TokenWrite[]): Unit<void>;
  /** Once that unit has ended, committed (`landed`) or not. */
  settle(writes: readonly TokenWrite[], landed: boolean): void;
}

export interface WriteContext {
  caller: Caller;
  /** PFX-TRANSACTION-ID, when the request enlists in a transaction. */
  transactionId?: string;
  /** The request whose writes these are, named by their events; null for the start-up seed, which raises none. */
  cause: EventCause | null;
}

/** What a create that failed answers: a 409 naming the ids that were taken (a duplicate key), else its error. */
function* createFailure(error: unknown, writes: readonly TokenWrite[]): Unit<unknown> {
  if (!isDuplicateKey(error)) return error ?? new Error('The create failed');
  const taken: string[] = [];
  for (const id of writtenIds(writes)) if (yield* idTaken(id)) taken.push(id);
  return new ApiProblem(409, `A token with id ${taken.join(', ')} already exists`);
}

/** The writes as they go to the writer: each carries its cause, to its commit if a transaction holds it back. */
const caused = <W extends TokenWrite>(writes: W[], cause: EventCause | null): W[] => (cause === null ? writes : writes.map((write) => ({ ...write, cause })));

type FieldErrors = Record<string, string[]>;
const addError = (errors: FieldErrors, field: string, message: string) => (errors[field] ??= []).push(message);

/** Runs `make`; its validation errors name fields under `path` (`people[1].card.data.number`), not at the root. */
function atPath<T>(path: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (!path || !(error instanceof ApiProblem) || !error.errors) throw error;
    throw validationProblem(Object.fromEntries(Object.entries(error.errors).map(([field, messages]) => [`${path}.${field}`, messages])));
  }
}

/** The vendor never copies a card intent's CVC into its token. */
function withoutCvc(type: string, data: unknown): unknown {
  if (type !== 'card' || typeof data !== 'object' || data === null || !('cvc' in data)) return data;
  const { cvc: _cvc, ...rest } = data as Record<string, unknown>;
  return rest;
}

/** The fields of a token that nobody has set yet. */
const UNSET_FIELDS = { fingerprint: null, modified_by: null, modified_at: null } as const;

const sameContainers = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c) => b.includes(c));

/** What expressions naming ids that are no live token get (the proxy, /detokenize). */
export const missingTokensProblem = (missing: readonly string[]) =>
  new ApiProblem(400, `Failed to detokenize some tokens: ${missing.join(', ')} not found or expired`);

/** What history shows for a value it may not show. */
export const REDACTED = '[redacted]';

/** The transform the workbench shows a caller's view with: the mask where the caller would see plaintext. */
export const withoutPlaintext = (transform: Transform): Transform => (transform === 'reveal' ? 'mask' : transform);

/**
 * The vault's service over either runner: `R`, its store's, says whether its reads (`read`, `tokensForExpressions`,
 * `detokenize`) answer at once (SQLite's, so the proxy's path stays synchronous) or a Promise (PostgreSQL's, except
 * that detokenizing hot tokens answers at once there too). Its writes are async either way.
 */
export class TokenService<R extends AnyUnitRunner = UnitRunner> {
  private writer: TokenWriter;
  private intents: IntentSource = {
    liveMany: () => [],
    consuming: (ids) => {
      throw new ApiProblem(400, goneIntentDetail(ids[0]));
    },
    consumed: () => undefined,
  };
  /** Masked data by token id; writes evict (see TokenStore.onWrite). */
  private readonly masked = new LruCache<string, unknown>(10_000);
  /** Plain creates waiting for the next group commit (see createGrouped). */
  private pendingCreates: { write: TokenWrite; context: WriteContext; settle: (error?: unknown) => void }[] = [];
  private defaults: () => TokenDefaults = () => TOKEN_DEFAULTS;
  private activity: TokenActivity = { mark: () => undefined };
  /** The committed token each record handed to expressions came from. */
  private readonly storedOf = new WeakMap<TokenRecord, StoredToken>();
  /**
   * Records handed to expressions, per committed token object and transform: the store's hot cache hands out the same
   * object until a write replaces it, so a token detokenized again and again becomes a record once.
   */
  private readonly records = new WeakMap<StoredToken, Partial<Record<Transform, TokenRecord>>>();
  /** maskedView's answers, per committed token object. */
  private readonly maskedViews = new WeakMap<StoredToken, TokenRecord>();

  /** The store as code written for either runner reads it: `T | Promise<T>`. */
  private readonly vault: TokenStore<AnyUnitRunner>;

  constructor(
    readonly store: TokenStore<R>,
    private readonly sealer: Sealer,
    private readonly expressions: ExpressionEngine,
    private readonly tenantId: string,
  ) {
    this.vault = store;
    store.onWrite((ids) => (ids === null ? this.masked.clear() : ids.forEach((id) => this.masked.delete(id))));
    const direct = (writes: readonly TokenWrite[]) => applyTokenWrites(store.writing, writes);
    const directly: WriteTarget = { reader: this.vault, unit: direct, settle: (writes, landed) => store.settle(writes, landed) };
    this.writer = { target: () => Promise.resolve(directly), direct };
  }

  useWriter(writer: TokenWriter): void {
    this.writer = writer;
  }

  /** Where the tenant's settings are read at each create. */
  useDefaults(defaults: () => TokenDefaults): void {
    this.defaults = defaults;
  }

  /** Where reads and uses of tokens are counted. */
  useActivity(activity: TokenActivity): void {
    this.activity = activity;
  }

  /** Whether a create deduplicates: as it says, else as the tenant's `deduplicate_tokens` says. */
  private deduplicates(input: { deduplicate_token?: boolean }): boolean {
    return input.deduplicate_token ?? this.defaults().deduplicate;
  }

  /** The fingerprint expression of a token that names none: its type's, unless the tenant fingerprints no such token. */
  private fingerprintExpressionFor(type: TokenType): string | null {
    return this.defaults().fingerprint ? defaultFingerprintExpression(type) : null;
  }

  /** Where token intents are found for conversions and expressions; without one, no intent exists. */
  useIntents(source: IntentSource): void {
    this.intents = source;
  }

  // ---- views -------------------------------------------------------------------------------------------------

  /**
   * The token's fields but its data, field by field: an object literal gets one fixed shape, where spreading a
   * fifteen-field token copies it property by property on V8's slow path.
   */
  private fieldsOf(token: StoredToken): TokenView {
    return {
      id: token.id,
      tenant_id: token.tenant_id,
      type: token.type,
      containers: token.containers,
      metadata: token.metadata,
      mask: token.mask,
      fingerprint: token.fingerprint,
      fingerprint_expression: token.fingerprint_expression,
      search_indexes: token.search_indexes,
      expires_at: token.expires_at,
      created_by: token.created_by,
      created_at: token.created_at,
      modified_by: token.modified_by,
      modified_at: token.modified_at,
    };
  }

  record(token: StoredToken): TokenRecord {
    const record = this.fieldsOf(token) as TokenView & TokenRecord;
    record.data = token.data;
    const card = isCardType(token.type) ? cardDetails(token.data) : undefined;
    if (card) record.card = card;
    return record;
  }

  /** The token's data under its mask, or undefined (redacted) when it has none or it cannot render: never plaintext. */
  private renderMask(token: StoredToken): unknown {
    if (token.mask === null || token.mask === undefined) return undefined;
    try {
      return this.expressions.renderTokenTemplate(token.mask, this.record(token));
    } catch {
      return undefined;
    }
  }

  /**
   * renderMask for a token as committed in the store. Masked data is safe to keep, so it is cached until a write
   * to the token; tokens not (yet) committed, such as a transaction's staged versions, never enter the cache.
   */
  storedMaskedData(token: StoredToken): unknown {
    return this.masked.getOrCreate(token.id, () => this.renderMask(token));
  }

  /** storedMaskedData of a row as read from the store, unsealing it only when the cache does not hold its mask. */
  storedMaskedDataOfRow(row: TokenRow): unknown {
    if (row.mask === null) return undefined;
    return this.masked.getOrCreate(row.id, () => this.renderMask(this.store.hydrate(row)));
  }

  /** The token as the caller may see it; `stored` when it was read from the store as committed. */
  view(token: StoredToken, transform: Transform, options: { withMetadata?: boolean; stored?: boolean } = {}): TokenView {
    const { data } = token;
    // `data` and `card` come last, as clients see them.
    const view = this.fieldsOf(token);
    if (transform === 'reveal') view.data = data;
    else if (transform === 'mask') view.data = options.stored ? this.storedMaskedData(token) : this.renderMask(token);
    if (options.withMetadata === false) delete view.metadata;
    if (isCardType(token.type)) view.card = cardDetails(data) ?? undefined;
    return view;
  }

  // ---- derived values ------------------------------------------------------------------------------------------

  private renderString(template: string, token: StoredToken): string {
    const value = this.expressions.renderTokenTemplate(template, this.record(token));
    if (value === null || value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  private fingerprintOf(token: StoredToken): string | null {
    if (!token.fingerprint_expression) return null;
    const value = this.renderString(token.fingerprint_expression, token);
    return value === '' ? null : this.sealer.fingerprint(`${token.type}\u0000${value}`);
  }

  /**
   * An intent as the token it would become with no other fields given: in its type's default container, with its
   * default mask and fingerprint expression. Expressions check access to it and mask it as such a token.
   */
  private intentToken(intent: LiveIntent): StoredToken {
    const { id, type, data, expires_at, created_by, created_at } = intent;
    const defaults = { containers: [defaultContainer(type)], mask: defaultMask(type), fingerprint_expression: this.fingerprintExpressionFor(type) };
    return { id, tenant_id: this.tenantId, type, data, ...defaults, ...UNSET_FIELDS, expires_at, created_by, created_at, metadata: {}, search_indexes: [] };
  }

  /** The fingerprint the intent's token will have by default, so that an intent and its token match. */
  intentFingerprint(intent: LiveIntent): string | null {
    return this.expressions.withBudget(() => this.fingerprintOf(this.intentToken(intent)));
  }

  /** Search terms are keyed hashes too: searches match them without any plaintext in the database. */
  termHash(field: TermField, value: string): string {
    return termHash(this.sealer, field, value);
  }

  private searchTermsOf(token: StoredToken): string[] {
    const terms = new Set<string>();
    for (const template of token.search_indexes) {
      const value = this.renderString(template, token);
      if (value !== '') terms.add(this.termHash('search', value));
    }
    return [...terms];
  }

  /**
   * Validates the templates a token carries, at write time, so a bad mask fails the request instead of later reads.
   * A mask of the client's is also rendered, within the request's budget: one too costly to render is refused now
   * rather than redacted on every read (one that fails on this data still redacts, as before).
   */
  private checkTemplates(token: StoredToken, errors: FieldErrors, customMask: boolean): void {
    const check = (field: string, template: unknown) => {
      try {
        this.expressions.validateTokenTemplate(template);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        addError(errors, field, `${error.reason} in ${error.expression}`);
      }
    };
    if (token.mask !== null && token.mask !== undefined) check('mask', token.mask);
    if (token.fingerprint_expression) check('fingerprint_expression', token.fingerprint_expression);
    token.search_indexes.forEach((t, i) => check(`search_indexes.${i}`, t));
    if (customMask && !errors.mask && token.mask !== null && token.mask !== undefined) {
      try {
        this.expressions.renderTokenTemplate(token.mask, this.record(token));
      } catch (error) {
        if (error instanceof ExpressionOverBudget) addError(errors, 'mask', `${error.reason} in ${error.expression}`);
      }
    }
  }

  private checkContainers(containers: string[], errors: FieldErrors): string[] {
    containers.forEach((c, i) => {
      const problem = validateContainer(c);
      if (problem) addError(errors, `containers.${i}`, problem);
    });
    return containers.map(normalizeContainer);
  }

  private checkExpiry(expiresAt: string | null | undefined, errors: FieldErrors): string | null {
    if (expiresAt === undefined || expiresAt === null) return null;
    const iso = new Date(expiresAt).toISOString();
    if (iso <= nowIso()) addError(errors, 'expires_at', 'expires_at must be in the future');
    return iso;
  }

  private finish(token: StoredToken, errors: FieldErrors, customMask: boolean): StoredToken {
    if (Object.keys(errors).length === 0) this.checkTemplates(token, errors, customMask);
    if (Object.keys(errors).length > 0) throw validationProblem(errors);
    token.fingerprint = this.fingerprintOf(token);
    return token;
  }

  // ---- writes --------------------------------------------------------------------------------------------------

  /**
   * Runs `work` with one expression budget for the templates of up to TOKENS_PER_BUDGET token creates (their masks,
   * fingerprints and search indexes), as one POST /tokenize request has; the create past that is a 400 saying `tooMany`.
   */
  inTokenGroup<T>(tooMany: string, work: (group: TokenGroup) => T): T {
    let creates = 0;
    const group: TokenGroup = {
      prepare: (input, caller) => {
        // Counted before the work, so a body of thousands of creates stops at the limit instead of being prepared whole.
        if (++creates > TOKENS_PER_BUDGET) throw new ApiProblem(400, tooMany);
        return this.prepareCreate(input, caller);
      },
      write: (token) => {
        this.store.sealAhead(token);
        return this.createWrite(token);
      },
    };
    return this.expressions.withBudget(() => work(group));
  }

  private createWrite(token: StoredToken): CreateWrite {
    return { op: 'create', token, searchTerms: this.searchTermsOf(token) };
  }

  /**
   * `prepare` within one expression budget over the vault as `reader` shows it (see settled), with the writes it
   * lands: at once when every read answered at once.
   */
  private preparing<T>(reader: TokenReader, prepare: (vault: PassReader, land: (write: TokenWrite) => void) => T): Prepared<T> | Promise<Prepared<T>> {
    // A reader other than the store's is a transaction's view, which knows ids the table does not.
    return settled(reader, this.intents, reader !== this.vault, (vault) => {
      const writes: TokenWrite[] = [];
      const free: FreeFingerprint[] = [];
      const deduplicating: PassReader = {
        ...vault,
        findByFingerprint: (type, fingerprint) => {
          const found = vault.findByFingerprint(type, fingerprint);
          if (!found) free.push({ type, fingerprint });
          return found;
        },
      };
      const value = this.expressions.withBudget(() => prepare(deduplicating, (write) => writes.push(write)));
      return { value, writes, free };
    });
  }

  /** Validates a create request into the token it would store, with the caller's create transform. */
  prepareCreate(input: CreateTokenRequest, caller: Caller): { token: StoredToken; transform: Transform } {
    const errors: FieldErrors = validateTokenData(input.type, input.data);
    if (input.id !== undefined) {
      const problem = validateTokenId(input.id);
      if (problem) addError(errors, 'id', problem);
    }
    if (errors.type) throw validationProblem(errors);
    const type = input.type as TokenType;
    const containers = this.checkContainers(input.containers ?? [defaultContainer(type)], errors);
    const now = nowIso();
    const token: StoredToken = {
      id: input.id ?? randomUUID(),
      tenant_id: this.tenantId,
      type,
      data: input.data,
      containers,
      metadata: input.metadata ?? {},
      mask: input.mask === undefined ? defaultMask(type) : input.mask,
      fingerprint: null,
      fingerprint_expression: input.fingerprint_expression ?? this.fingerprintExpressionFor(type),
      search_indexes: input.search_indexes ?? [...defaultSearchIndexes(type)],
      expires_at: this.checkExpiry(input.expires_at, errors),
      created_by: caller.application.id,
      created_at: now,
      modified_by: null,
      modified_at: null,
    };
    this.finish(token, errors, input.mask !== undefined);
    if (input.id === undefined) madeIds.add(token);
    return { token, transform: caller.policy.require('token:create', containers) };
  }

  async create(input: CreateTokenRequest | IntentConversionRequest, context: WriteContext): Promise<TokenView> {
    const target = await this.writer.target(context);
    const converted = isConversion(input) ? { ids: [input.token_intent_id], transactionId: context.transactionId } : undefined;
    // One request: its mask, fingerprint and search indexes are rendered within one budget.
    return this.preparedAndLanded(
      target.reader,
      (vault, land) => {
        if (isConversion(input)) {
          const { token, transform } = this.prepareConversion(input, context.caller, '', vault);
          return this.landConversion(input.token_intent_id, token, transform, this.deduplicates(input), context.caller, land, vault);
        }
        const { token, transform } = this.prepareCreate(input, context.caller);
        return this.createPrepared(token, transform, this.deduplicates(input), context.caller, land, vault);
      },
      (writes, free) => this.land(target, writes, context.cause, converted, free),
    );
  }

  /**
   * Prepares writes (see preparing) and lands them. Awaited only when a read was (PostgreSQL): on SQLite the unit
   * starts in this turn, so nothing comes between its reads and its writes. Over PostgreSQL another replica may take a
   * fingerprint the preparation found free before these writes land: the unit checks them under their locks, and when
   * one was taken the whole request is prepared again, and finds that token as its duplicate.
   */
  private async preparedAndLanded<T>(
    reader: TokenReader,
    prepare: (vault: PassReader, land: (write: TokenWrite) => void) => T,
    landing: (writes: TokenWrite[], free: readonly FreeFingerprint[]) => Promise<void>,
  ): Promise<T> {
    for (;;) {
      const prepared = this.preparing(reader, prepare);
      const { value, writes, free } = prepared instanceof Promise ? await prepared : prepared;
      try {
        if (writes.length > 0) await landing(writes, prepared instanceof Promise ? free : []);
        return value;
      } catch (error) {
        if (!(error instanceof FingerprintTakenMeanwhile)) throw error;
      }
    }
  }

  /**
   * POST /tokens: like `create`, but a plain create (no transaction, no deduplication) joins the others that arrived
   * in the same turn of the event loop, and they commit in one SQLite transaction: a commit per create is the
   * largest single cost of a create. Each keeps its own savepoint, so one client's 409 never undoes another's token,
   * and each reply still waits for the commit. The checks that must see the vault as the write lands (taken ids,
   * transaction locks) run inside that transaction, as for `create`.
   */
  async createGrouped(input: CreateTokenRequest | IntentConversionRequest, context: WriteContext): Promise<TokenView> {
    if (isConversion(input) || this.deduplicates(input) || context.transactionId !== undefined) return this.create(input, context);
    // Neither deduplicated nor staged, it reads nothing: prepared in this turn.
    const { value: view, writes } = this.preparing(this.vault, (vault, land) => {
      const { token, transform } = this.prepareCreate(input, context.caller);
      return this.createPrepared(token, transform, false, context.caller, land, vault);
    }) as Prepared<TokenView>;
    await this.commitWithOthers(writes[0], context);
    return view;
  }

  private commitWithOthers(write: TokenWrite, context: WriteContext): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pendingCreates.push({ write, context, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (this.pendingCreates.length === 1) setImmediate(this.commitPendingCreates);
    });
  }

  /** The group commit unit: each create in a savepoint of its own, so one's failure undoes that create only. */
  private readonly commitPendingCreates = (): void => {
    const group = this.pendingCreates.map(({ write, context, settle }) => ({ writes: caused([write], context.cause), settle }));
    this.pendingCreates = [];
    void this.commitGroup(group);
  };

  private async commitGroup(group: { writes: TokenWrite[]; settle: (error?: unknown) => void }[]): Promise<void> {
    const { writer } = this;
    let outcomes: unknown[];
    try {
      outcomes = await this.store.units.run(function* () {
        const failures: unknown[] = [];
        for (const { writes } of group) {
          const attempt = yield* tx.savepoint(writer.direct(writes));
          failures.push(attempt.ok ? undefined : yield* createFailure(attempt.error, writes));
        }
        return failures;
      });
    } catch (error) {
      outcomes = group.map(() => error);
    }
    group.forEach(({ writes, settle }, i) => {
      this.store.settle(writes, outcomes[i] === undefined);
      settle(outcomes[i]);
    });
  }

  /**
   * Writes a prepared token (or finds its duplicate, and with the tenant's `update_existing` merges the new data into
   * it). `land` takes the write: into the next group commit, or for the caller to land whole (a create's, the batch
   * of a POST /tokenize) as soon as the budget's work is done.
   */
  private createPrepared(
    token: StoredToken,
    transform: Transform,
    deduplicate: boolean,
    caller: Caller,
    land: (write: LandedWrite) => void,
    reader: PassReader,
  ): TokenView {
    if (deduplicate && token.fingerprint) {
      const existing = reader.findByFingerprint(token.type, token.fingerprint);
      if (existing && this.defaults().updateDuplicate) return this.mergeIntoDuplicate(existing, token, caller, land);
      if (existing) {
        // The hosted service hides data and metadata of a deduplicated token from callers that may not read it.
        const read = caller.policy.transformFor('token:read', existing.containers, undefined, existing.id);
        const view = this.view(existing, read ?? 'redact', { withMetadata: read !== null });
        view._extras = { deduplicated: true };
        return view;
      }
    }
    // Outside a transaction the table's primary key is the check (see land); a transaction's staged view, and a
    // batch, know ids the table does not. An id the vault made is new.
    if (reader.staged && !madeIds.has(token) && reader.idTaken(token.id)) throw new ApiProblem(409, `A token with id ${token.id} already exists`);
    land(this.createWrite(token));
    const view = this.view(token, transform);
    view._extras = { deduplicated: false };
    return view;
  }

  /** The token a conversion would make: `prepare` over the intent's type and data (a 400 naming the intent when gone). */
  private prepareConversion(
    input: IntentConversionRequest,
    caller: Caller,
    path: string,
    vault: PassReader,
    prepare: (input: CreateTokenRequest, caller: Caller) => { token: StoredToken; transform: Transform } = (i, c) => this.prepareCreate(i, c),
  ) {
    const [intent] = vault.liveIntents([input.token_intent_id]);
    if (!intent) throw new ApiProblem(400, goneIntentDetail(input.token_intent_id), { [path ? `${path}.token_intent_id` : 'token_intent_id']: [goneIntentDetail(input.token_intent_id)] });
    const { token_intent_id: _id, type: _type, data: _data, ...fields } = input;
    return atPath(path, () => prepare({ ...fields, type: intent.type, data: withoutCvc(intent.type, intent.data) }, caller));
  }

  /**
   * Lands a converted token. With deduplication on, a token of the same fingerprint in the same containers is updated
   * with the intent's data instead (a merge patch) and returned: intents always update the duplicate (vendor).
   */
  private landConversion(intentId: string, token: StoredToken, transform: Transform, deduplicate: boolean, caller: Caller, land: (write: TokenWrite) => void, vault: PassReader): TokenView {
    // The write names the intent it consumed: its token-intent.converted event is raised where the write lands.
    const intent: ConvertedIntent = { id: intentId, type: token.type };
    const existing = deduplicate && token.fingerprint ? vault.findByFingerprint(token.type, token.fingerprint) : undefined;
    const withIntent = (write: LandedWrite) => land({ ...write, intent });
    if (!existing || !sameContainers(existing.containers, token.containers)) return this.createPrepared(token, transform, false, caller, withIntent, vault);
    return this.mergeIntoDuplicate(existing, token, caller, withIntent);
  }

  /** A duplicate updated with the new token's data (a merge patch, needing token:update on it), as the create's answer. */
  private mergeIntoDuplicate(existing: StoredToken, token: StoredToken, caller: Caller, land: (write: LandedWrite) => void): TokenView {
    const { write, view } = this.prepareUpdate(existing, { data: token.data }, caller);
    land(write);
    view._extras = { deduplicated: true };
    return view;
  }

  /**
   * Lands `writes` at `target` (whose unit checks transaction locks), then settles them; an id that is already taken
   * is the client's 409, not a 500. `converted`, a conversion's intents, are taken in the same unit as their tokens
   * land: both, or neither. The unit starts before the first await, so on SQLite the reads that prepared the writes and
   * the writes are one turn of the event loop: no other request's write comes between.
   */
  private async land(
    target: WriteTarget,
    writes: TokenWrite[],
    cause: EventCause | null,
    converted?: { ids: readonly string[]; transactionId: string | undefined },
    free: readonly FreeFingerprint[] = [],
  ): Promise<void> {
    const list = caused(writes, cause);
    const { intents } = this;
    const unit = converted
      ? function* (): Unit<void> {
          yield* intents.consuming(converted.ids, converted.transactionId);
          yield* target.unit(list);
        }
      : () => target.unit(list);
    const start = free.length === 0 ? unit : () => withFreeFingerprints(free, unit());
    let landed = false;
    try {
      await this.store.units.run(start);
      landed = true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      throw await this.store.units.read(() => createFailure(error, writes));
    } finally {
      target.settle(list, landed);
    }
    if (converted) intents.consumed(converted.ids);
  }

  /**
   * Prepared creates within a unit of the caller's (a seed's, with its applications), through the writer, which checks
   * transaction locks: in a savepoint, so that a taken id is read after it and answered as the client's 409, not a 500.
   * The caller settles the writes once committed (TokenStore.runWrites).
   */
  *creatingAll(writes: TokenWrite[], cause: EventCause | null): Unit<void> {
    const attempt = yield* tx.savepoint(this.writer.direct(caused(writes, cause)));
    if (!attempt.ok) throw yield* createFailure(attempt.error, writes);
  }

  private require(id: string, token: StoredToken | undefined): StoredToken {
    if (!token) throw new ApiProblem(404, `Token ${id} not found`);
    return token;
  }

  read(id: string, caller: Caller, cause: EventCause): Answer<R, TokenView> {
    const found = this.vault.get(id);
    // Over SQLite, no callback made per read.
    return (found instanceof Promise ? found.then((token) => this.readView(id, token, caller, cause)) : this.readView(id, found, caller, cause)) as Answer<R, TokenView>;
  }

  /** read's answer once its token is read. */
  private readView(id: string, found: StoredToken | undefined, caller: Caller, cause: EventCause): TokenView {
    const token = this.require(id, found);
    const view = this.view(token, caller.policy.require('token:read', token.containers, undefined, id), { stored: true });
    this.activity.mark(id);
    raiseRead(this.store.outbox, [token], cause);
    return view;
  }

  /** Counts tokens a list answered as read. */
  markRead(views: readonly TokenView[]): void {
    for (const view of views) this.activity.mark(view.id);
  }

  async update(id: string, patch: UpdateTokenRequest, context: WriteContext): Promise<TokenView> {
    for (let attempt = 1; ; attempt++) {
      const target = await this.writer.target(context);
      // Awaited only when the read was (PostgreSQL): on SQLite the read, the preparation and the unit are one turn.
      const found = target.reader.get(id);
      const current = this.require(id, found instanceof Promise ? await found : found);
      const { write, view } = this.expressions.withBudget(() => this.prepareUpdate(current, patch, context.caller));
      try {
        // Over PostgreSQL another replica may change the token between the read and the unit: the patch is then
        // merged again into what it wrote (the failed unit made the store forget the token), never over it.
        await this.land(target, [{ ...write, seen: current.modified_at ?? current.created_at }], context.cause);
        return view;
      } catch (error) {
        if (!(error instanceof TokenChanged)) throw error;
        if (attempt === UPDATE_ATTEMPTS) throw new ApiProblem(409, `${error.message}: send the update again`);
      }
    }
  }

  /** The write a merge patch of `current` makes, and the caller's view of the result. */
  private prepareUpdate(current: StoredToken, patch: UpdateTokenRequest, caller: Caller): { write: Extract<TokenWrite, { op: 'update' }>; view: TokenView } {
    const { id } = current;
    const { policy } = caller;
    policy.require('token:update', current.containers, undefined, id);
    const type = current.type as TokenType;
    const errors: FieldErrors = {};
    // Sent back unchanged (a client PATCHing the token it read) they are fine; a change would need a new token.
    if (patch.type !== undefined && patch.type !== type) addError(errors, 'type', "A token's type cannot change");
    if (patch.id !== undefined && patch.id !== id) addError(errors, 'id', "A token's id cannot change");
    const data = patch.data === undefined ? current.data : mergePatch(current.data, patch.data);
    Object.assign(errors, validateTokenData(type, data));
    // In a merge patch `null` removes a field: containers, search indexes and fingerprint go back to the type's
    // default, as if never given; a removed mask is no mask (redact), as `"mask": null` is on create.
    const containers =
      patch.containers === undefined ? current.containers : this.checkContainers(patch.containers ?? [defaultContainer(type)], errors);
    const token: StoredToken = {
      ...current,
      data,
      containers,
      metadata: patch.metadata === undefined ? current.metadata : ((mergePatch(current.metadata, patch.metadata) ?? {}) as Record<string, string>),
      mask: patch.mask === undefined ? current.mask : mergePatch(current.mask, patch.mask),
      fingerprint_expression:
        patch.fingerprint_expression === undefined
          ? current.fingerprint_expression
          : (patch.fingerprint_expression ?? this.fingerprintExpressionFor(type)),
      search_indexes: patch.search_indexes === undefined ? current.search_indexes : (patch.search_indexes ?? [...defaultSearchIndexes(type)]),
      expires_at: patch.expires_at === undefined ? current.expires_at : this.checkExpiry(patch.expires_at, errors),
      modified_by: caller.application.id,
      modified_at: nowIso(),
    };
    this.finish(token, errors, patch.mask !== undefined && patch.mask !== null);
    // Moving a token needs the right to update it where it goes, too.
    const transform = policy.require('token:update', containers, undefined, id);
    return { write: { op: 'update', token, searchTerms: this.searchTermsOf(token) }, view: this.view(token, transform) };
  }

  /** Answers the deleted token's type. */
  async delete(id: string, context: WriteContext): Promise<string> {
    const target = await this.writer.target(context);
    const found = target.reader.get(id);
    const token = this.require(id, found instanceof Promise ? await found : found);
    context.caller.policy.require('token:delete', token.containers, undefined, id);
    await this.land(target, [{ op: 'delete', id }], context.cause);
    return token.type;
  }

  // ---- tokenize / detokenize -----------------------------------------------------------------------------------

  /**
   * POST /tokenize: token requests become tokens, any other primitive leaf becomes a `token` token whose id takes its
   * place; arrays and objects keep their shape. All tokens land together or none does.
   */
  async tokenize(body: unknown, context: WriteContext, parseRequest: (value: unknown, path: string) => CreateTokenRequest | IntentConversionRequest): Promise<unknown> {
    const target = await this.writer.target(context);
    const intentIds: string[] = [];
    const prepare = (vault: PassReader, keep: (write: TokenWrite) => void) => {
      intentIds.length = 0;
      // Looked up by key, not by scanning the batch: each create checks them.
      const batchIds = new Set<string>();
      const batchFingerprints = new Map<string, StoredToken>();
      const land = (write: TokenWrite) => {
        keep(write);
        if (write.op !== 'create') return;
        batchIds.add(write.token.id);
        const key = `${write.token.type}\u0000${write.token.fingerprint}`;
        // The first of the batch with a fingerprint is the one a later duplicate finds.
        if (write.token.fingerprint && !batchFingerprints.has(key)) batchFingerprints.set(key, write.token);
      };
      // The vault as this batch's own requests see it: an id taken, or a duplicate made, earlier in the batch counts.
      const reader: PassReader = {
        staged: true,
        get: (id) => vault.get(id),
        idTaken: (id) => batchIds.has(id) || vault.idTaken(id),
        findByFingerprint: (type, fingerprint) => vault.findByFingerprint(type, fingerprint) ?? batchFingerprints.get(`${type}\u0000${fingerprint}`),
        liveIntents: (ids) => vault.liveIntents(ids),
      };
      // One request, one group: its tokens are counted as the walk goes, and their templates rendered within one budget.
      return this.inTokenGroup(TOO_MANY_TOKENS, (group) => {
        const create = (input: CreateTokenRequest | IntentConversionRequest, path: string) => {
          if (isConversion(input)) {
            if (intentIds.includes(input.token_intent_id)) throw validationProblem({ [`${path}.token_intent_id`]: ['A token intent converts once: this one is named twice'] });
            intentIds.push(input.token_intent_id);
            const { token, transform } = this.prepareConversion(input, context.caller, path, reader, group.prepare);
            return this.landConversion(input.token_intent_id, token, transform, this.deduplicates(input), context.caller, land, reader);
          }
          const { token, transform } = atPath(path, () => group.prepare(input, context.caller));
          return this.createPrepared(token, transform, this.deduplicates(input), context.caller, land, reader);
        };
        const walk = (value: unknown, path: string): unknown => {
          if (value === null || value === undefined) return value;
          if (Array.isArray(value)) return value.map((v, i) => walk(v, `${path}[${i}]`));
          if (typeof value === 'object') {
            if (('type' in value && 'data' in value) || 'token_intent_id' in value) return create(parseRequest(value, path), path);
            return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, path ? `${path}.${k}` : k)]));
          }
          return create({ type: 'token', data: value }, path).id;
        };
        return walk(body, '');
      });
    };
    return this.preparedAndLanded(target.reader, prepare, (batch, free) =>
      this.land(target, batch, context.cause, intentIds.length > 0 ? { ids: intentIds, transactionId: context.transactionId } : undefined, free),
    );
  }

  /**
   * Live tokens by id for expressions (POST /detokenize, the proxy), in one query, each with its data after the
   * caller's transform for `permission`. Unknown or expired ids are a 400 that names them. `readBy`: the request that
   * detokenizes them, each token's token.read naming it (none for the workbench's own checks and reveals). At once when
   * every token is hot, or over SQLite; a cold read over PostgreSQL is awaited.
   */
  tokensForExpressions(ids: readonly string[], caller: Caller, permission: Permission, bareTransform?: Transform, readBy?: EventCause): Answer<R, Map<string, TokenRecord>> {
    const intentKeys = ids.some((id) => id.startsWith(INTENT_KEY_PREFIX)) ? ids.filter((id) => id.startsWith(INTENT_KEY_PREFIX)) : [];
    const tokenIds = intentKeys.length === 0 ? ids : ids.filter((id) => !id.startsWith(INTENT_KEY_PREFIX));
    const found = this.vault.getMany(tokenIds);
    const intents = intentKeys.length === 0 ? NO_INTENTS : this.intents.liveMany(intentKeys.map((key) => key.slice(INTENT_KEY_PREFIX.length)));
    if (found instanceof Promise || intents instanceof Promise) {
      return Promise.all([found, intents]).then(([tokens, live]) => this.recordsOf(tokenIds, intentKeys, tokens, live, caller, permission, bareTransform, readBy)) as Answer<R, Map<string, TokenRecord>>;
    }
    // The proxy's hot path: no array of both, no callback.
    return this.recordsOf(tokenIds, intentKeys, found, intents, caller, permission, bareTransform, readBy) as Answer<R, Map<string, TokenRecord>>;
  }

  /** tokensForExpressions' records of what it found. */
  private recordsOf(
    tokenIds: readonly string[],
    intentKeys: readonly string[],
    found: (StoredToken | undefined)[],
    intents: LiveIntent[],
    caller: Caller,
    permission: Permission,
    bareTransform: Transform | undefined,
    readBy: EventCause | undefined,
  ): Map<string, TokenRecord> {
    if (found.includes(undefined) || intents.length < intentKeys.length) {
      const live = new Set(intents.map((intent) => INTENT_KEY_PREFIX + intent.id));
      throw missingTokensProblem([...tokenIds.filter((_, i) => found[i] === undefined), ...intentKeys.filter((key) => !live.has(key))]);
    }
    const records = new Map<string, TokenRecord>();
    for (const token of found as StoredToken[]) {
      records.set(token.id, this.recordFor(token, caller.policy.require(permission, token.containers, bareTransform, token.id)));
      this.activity.mark(token.id);
    }
    for (const intent of intents) records.set(INTENT_KEY_PREFIX + intent.id, this.intentRecord(intent, caller, permission, bareTransform));
    if (readBy) raiseRead(this.store.outbox, found as StoredToken[], readBy);
    return records;
  }

  /**
   * The live intents among expression ids (`token_intent:<id>`, others are passed over), by that id, each as the token
   * expressions treat it: for the workbench's checks, which decide access before any record is made.
   */
  intentTokensByKey(ids: readonly string[]): Answer<R, Map<string, StoredToken>> {
    const keys = ids.filter((id) => id.startsWith(INTENT_KEY_PREFIX));
    const found = keys.length === 0 ? NO_INTENTS : this.intents.liveMany(keys.map((key) => key.slice(INTENT_KEY_PREFIX.length)));
    return answerOf<R, LiveIntent[], Map<string, StoredToken>>(found, (live) => new Map(live.map((intent) => [INTENT_KEY_PREFIX + intent.id, this.intentToken(intent)])));
  }

  /** An intent for expressions: the whole intent view, its data as its token's would be for this caller (§4.6). */
  private intentRecord(intent: LiveIntent, caller: Caller, permission: Permission, bareTransform?: Transform): TokenRecord {
    const token = this.intentToken(intent);
    const transform = caller.policy.require(permission, token.containers, bareTransform);
    const data = transform === 'reveal' ? token.data : transform === 'mask' ? this.renderMask(token) : undefined;
    return this.record({ ...token, data: data ?? null });
  }

  private recordFor(token: StoredToken, transform: Transform): TokenRecord {
    let byTransform = this.records.get(token);
    if (!byTransform) this.records.set(token, (byTransform = {}));
    let record = byTransform[transform];
    if (!record) {
      const data = transform === 'reveal' ? token.data : transform === 'mask' ? this.storedMaskedData(token) : undefined;
      record = this.record({ ...token, data: data ?? null });
      this.storedOf.set(record, token);
      byTransform[transform] = record;
    }
    return record;
  }

  /**
   * A record from tokensForExpressions as history shows it: its data masked as a masked read shows it (redacted for a
   * type without a mask), or redacted when the vault did not hand the record out.
   */
  maskedRecord(record: TokenRecord): TokenRecord {
    const stored = this.storedOf.get(record);
    return stored ? this.maskedView(stored) : { ...record, data: REDACTED };
  }

  /**
   * maskedRecord for live tokens (and token intents, by their `token_intent:` key) by id, for history's view of a body
   * long after it was sent (the workbench's user sees every token masked, so no caller); ids gone since are left out.
   */
  maskedRecordsById(ids: readonly string[]): Answer<R, Map<string, TokenRecord>> {
    const intents = this.intentTokensByKey(ids) as Map<string, StoredToken> | Promise<Map<string, StoredToken>>;
    return answerOf<R, [(StoredToken | undefined)[], Map<string, StoredToken>], Map<string, TokenRecord>>(
      bothOf(this.vault.getMany(ids), intents),
      ([tokens, intentTokens]) => {
        const records = new Map<string, TokenRecord>();
        for (const token of tokens) if (token) records.set(token.id, this.maskedView(token));
        // Rendered each time: the masked-data cache is by token id, which an intent's must not share.
        for (const [key, token] of intentTokens) records.set(key, { ...this.record(token), data: this.renderMask(token) ?? REDACTED });
        return records;
      },
    );
  }

  private maskedView(token: StoredToken): TokenRecord {
    let view = this.maskedViews.get(token);
    if (!view) {
      view = { ...this.record(token), data: this.storedMaskedData(token) ?? REDACTED };
      this.maskedViews.set(token, view);
    }
    return view;
  }

  detokenize(body: unknown, caller: Caller, cause: EventCause): Answer<R, unknown> {
    const { tokenIds, expressionCount } = this.expressions.collectJsonTokenIds(body);
    if (expressionCount === 0) return body as Answer<R, unknown>;
    // "token:read (reveal)" (docs/api.md, Tokenize and detokenize): bare permissions reveal here; an access rule's own
    // transform still applies.
    const records = this.tokensForExpressions(tokenIds, caller, 'token:read', 'reveal', cause) as Map<string, TokenRecord> | Promise<Map<string, TokenRecord>>;
    return (records instanceof Promise ? records.then((found) => this.expressions.detokenizeJson(body, found)) : this.expressions.detokenizeJson(body, records)) as Answer<R, unknown>;
  }
}
