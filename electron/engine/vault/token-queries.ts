import type { Caller } from '../access/authenticator';
import type { AccessPolicy, Permission } from '../access/permissions';
import type { EventCause } from '../events/event-outbox';
import { ApiProblem } from '../server/problem';
import { decodeCursor, encodeCursor } from '../server/page-cursor';
import { normalizeContainer } from '../access/containers';
import { MAX_SEARCH_TERMS, type SearchNode } from './search-query';
import { textTerms, type TermField } from './search-terms';
import { raiseRead } from './token-events';
import type { AnyUnitRunner, SqlDialect } from '../storage/unit';
import { SEARCH_SQL, type SearchSql } from './search-dialect';
import { LIVE, liveCountSql, type TokenRow, type TokenStore } from './token-store';
import { nowIso } from '../clock';
import { withoutPlaintext, type TokenService, type TokenView } from './token-service';

export interface V1Page {
  pagination: { total_items: number; page_number: number; page_size: number; total_pages: number };
  data: TokenView[];
}
export interface V2Page {
  pagination: { next: string | null; page_size: number };
  data: TokenView[];
}

/** The filters GET /tokens, GET /v2/tokens and both searches share. */
export interface TokenFilter {
  ids?: string[];
  metadata?: Record<string, string>;
  container?: string;
  type?: string;
  fingerprint?: string;
  search?: SearchNode | null;
  /** Metadata keys and values match in any case: the v1 list and search do, v2 matches exactly. */
  metadataAnyCase?: boolean;
}

const COLUMN: Record<string, string> = {
  id: 'id',
  type: 'type',
  fingerprint: 'fingerprint',
  created_by: 'created_by',
  modified_by: 'modified_by',
  created_at: 'created_at',
  modified_at: 'modified_at',
  expires_at: 'expires_at',
};

/**
 * Builds one parameterised WHERE clause for SQLite or PostgreSQL (search-dialect.ts holds where they differ); every
 * value is a bound parameter, never spliced into SQL.
 */
export class WhereBuilder {
  readonly params: Record<string, unknown> = { now: nowIso() };
  /** The filter's clauses; `sql` adds the live-token test. */
  readonly clauses: string[] = [];
  private n = 0;
  private metadataAnyCase = false;
  /** The ids each clause made of the terms' index alone matches, every one a token's (their rows cascade): see countSql. */
  private readonly termSets = new Map<string, string>();
  private readonly sqlOf: SearchSql;

  /**
   * `probeTerms` when the query walks the creation-order index: each token is then looked up in the terms' index, where
   * otherwise the matching ids are read from it first (a common term, a brand, has tens of thousands).
   */
  constructor(
    private readonly dialect: SqlDialect,
    private readonly termHash: (field: TermField, value: string) => string,
    private readonly probeTerms = false,
  ) {
    this.sqlOf = SEARCH_SQL[dialect];
  }

  bind(value: unknown): string {
    const name = `p${this.n++}`;
    this.params[name] = value;
    return `@${name}`;
  }

  containerUnder(prefix: string): string {
    const p = this.bind(prefix);
    return `EXISTS (SELECT 1 FROM ${this.sqlOf.containers} WHERE substr(c.value, 1, length(${p})) = ${p})`;
  }

  metadataEquals(key: string, value: string): string {
    const { metadataEntries, metadataText, lower } = this.sqlOf;
    if (this.metadataAnyCase) {
      const [k, v] = [metadataText(this, key.toLowerCase()), metadataText(this, value.toLowerCase())];
      return `EXISTS (SELECT 1 FROM ${metadataEntries} WHERE ${lower(this, 'm.key')} = ${k} AND ${lower(this, 'm.value')} = ${v})`;
    }
    return `EXISTS (SELECT 1 FROM ${metadataEntries} WHERE m.key = ${metadataText(this, key)} AND m.value = ${metadataText(this, value)})`;
  }

  /** Tokens with any of these terms (see probeTerms), or whose id `id` (a test of it) finds. */
  withTerms(terms: [TermField, string][], id?: string): string {
    const hashes = terms.map(([field, value]) => this.bind(this.termHash(field, value)));
    const found = this.probeTerms
      ? `EXISTS (SELECT 1 FROM token_search_terms s WHERE s.term_hash IN (${hashes.join(', ')}) AND s.token_id = tokens.id)`
      : `id IN (SELECT token_id FROM token_search_terms WHERE term_hash IN (${hashes.join(', ')}))`;
    const clause = id === undefined ? found : `(${id} OR ${found})`;
    // A term's rows name each token once, in id order: a UNION of one select per term merges them into distinct ids
    // without sorting them again.
    const sets = hashes.map((hash) => `SELECT token_id FROM token_search_terms WHERE term_hash = ${hash}`);
    this.termSets.set(clause, [...sets, ...(id === undefined ? [] : [`SELECT id FROM tokens WHERE ${id}`])].join(' UNION '));
    return clause;
  }

  node(node: SearchNode): string {
    switch (node.kind) {
      case 'text':
        return this.withTerms(textTerms(node.value), this.sqlOf.equals(this, 'id', node.value));
      case 'and':
      case 'or':
        return `(${node.children.map((c) => this.node(c)).join(` ${node.kind.toUpperCase()} `)})`;
      case 'not':
        return `NOT ${this.node(node.child)}`;
      case 'range': {
        const col = COLUMN[node.field];
        const parts = [`${col} IS NOT NULL`];
        if (node.from !== undefined) parts.push(`${col} ${node.fromInclusive ? '>=' : '>'} ${this.bind(node.from)}`);
        if (node.to !== undefined) parts.push(`${col} ${node.toInclusive ? '<=' : '<'} ${this.bind(node.to)}`);
        return `(${parts.join(' AND ')})`;
      }
      case 'term':
        if (node.field === 'container') return this.containerUnder(node.value);
        if (node.field === 'metadata') return this.metadataEquals(node.key, node.value);
        if (node.field === 'data') return this.withTerms([['search', node.value]]);
        if (node.field.startsWith('card.')) return this.withTerms([[node.field as TermField, node.value]]);
        return this.sqlOf.equals(this, COLUMN[node.field], node.value);
    }
  }

  filter(filter: TokenFilter): void {
    this.metadataAnyCase = filter.metadataAnyCase === true;
    if (filter.ids?.length) this.clauses.push(this.sqlOf.idIn(this, filter.ids));
    const metadata = Object.entries(filter.metadata ?? {});
    if (metadata.length > MAX_SEARCH_TERMS) {
      const message = `a request takes at most ${MAX_SEARCH_TERMS} metadata filters; this one gives ${metadata.length}`;
      throw new ApiProblem(400, `Invalid metadata filter: ${message}`, { metadata: [message] });
    }
    for (const [k, v] of metadata) this.clauses.push(this.metadataEquals(k, v));
    if (filter.container) this.clauses.push(this.containerUnder(normalizeContainer(filter.container)));
    if (filter.type) this.clauses.push(this.sqlOf.equals(this, 'type', filter.type));
    if (filter.fingerprint) this.clauses.push(this.sqlOf.equals(this, 'fingerprint', filter.fingerprint));
    if (filter.search) this.clauses.push(this.node(filter.search));
  }

  /** Only tokens in containers where the caller holds the permission (a list never reveals what a read would not). */
  permitted(policy: AccessPolicy, permission: Permission): void {
    if (!policy.has(permission)) throw new ApiProblem(403, `The application lacks ${permission}`);
    const prefixes = policy.containerPrefixes(permission);
    // A session granted single tokens only (conditioned rules) lists none. FALSE, not 0: given a constant 0, SQLite
    // finds no plan through the index a count names (INDEXED BY) and fails.
    if (prefixes.length === 0) this.clauses.push('FALSE');
    else if (!prefixes.includes('/')) this.clauses.push(`(${prefixes.map((p) => this.containerUnder(p)).join(' OR ')})`);
  }

  get sql(): string {
    return [LIVE, ...this.clauses].join(' AND ');
  }

  /** The filter alone, without the live-token test. */
  get filterSql(): string {
    return this.clauses.length === 0 ? this.sqlOf.always : this.clauses.join(' AND ');
  }

  /**
   * Counts the live tokens the filter matches. A filter that is one set of the terms' index is counted there alone: a
   * brand's tens of thousands of cards, looked up one by one among the tokens, cost tens of milliseconds.
   */
  get countSql(): string {
    return liveCountSql(this.filterSql, this.clauses.length === 1 ? this.termSets.get(this.clauses[0]) : undefined, this.dialect);
  }
}

/** A search as TokenStore.search takes it: the filter over `tokens`, its parameters, and its `ORDER BY … LIMIT`. */
export interface SearchStatement {
  where: string;
  params: Record<string, unknown>;
  tail: string;
  /** Walk the creation-order index (SQLite's INDEXED BY; PostgreSQL's planner decides). */
  indexedByCreation: boolean;
}

/** Page `page` (from 1) of `size` tokens in creation order. */
export function offsetPage(where: WhereBuilder, page: number, size: number): SearchStatement {
  const tail = `ORDER BY created_at, id LIMIT ${where.bind(size)} OFFSET ${where.bind((page - 1) * size)}`;
  return { where: where.sql, params: where.params, tail, indexedByCreation: false };
}

/**
 * The page of `size` tokens after the cursor `start` in creation order (or its reverse), read with one row more, which
 * says whether a next page exists (cursorRows); `inOrder` walks the creation-order index.
 */
export function cursorPage(where: WhereBuilder, start: string | undefined, size: number, first: 'oldest' | 'newest', inOrder: boolean): SearchStatement {
  const [after, order] = first === 'oldest' ? ['>', 'ASC'] : ['<', 'DESC'];
  if (start) {
    const position = decodeCursor(start, 'start');
    where.clauses.push(`(created_at, id) ${after} (${where.bind(position.created_at)}, ${where.bind(position.id)})`);
  }
  const tail = `ORDER BY created_at ${order}, id ${order} LIMIT ${where.bind(size + 1)}`;
  return { where: where.sql, params: where.params, tail, indexedByCreation: inOrder };
}

/** A cursorPage's rows as its page, and the cursor of the next page (null after the last). */
export function cursorRows<Row extends { created_at: string; id: string }>(rows: Row[], size: number): { rows: Row[]; next: string | null } {
  const more = rows.length > size;
  const pageRows = more ? rows.slice(0, size) : rows;
  return { rows: pageRows, next: more ? encodeCursor(pageRows[pageRows.length - 1]) : null };
}

export class TokenQueries {
  constructor(
    private readonly store: TokenStore<AnyUnitRunner>,
    private readonly tokens: TokenService<AnyUnitRunner>,
    /** The SQL the store's search and countMatching take. */
    private readonly dialect: SqlDialect = 'sqlite',
  ) {}

  private where(caller: Caller, permission: Permission, filter: TokenFilter, inOrder = false): WhereBuilder {
    const where = new WhereBuilder(this.dialect, (field, value) => this.tokens.termHash(field, value), inOrder);
    where.permitted(caller.policy, permission);
    where.filter(filter);
    return where;
  }

  private search(statement: SearchStatement): TokenRow[] | Promise<TokenRow[]> {
    return this.store.search(statement.where, statement.params, statement.tail, statement.indexedByCreation);
  }

  /**
   * `masked`: a caller that may see plaintext gets the mask instead (the workbench shows plaintext on a reveal only).
   * `readBy`: the request listing them, whose token.read each token shown with its data raises.
   */
  private views(rows: TokenRow[], caller: Caller, permission: Permission, masked = false, readBy?: EventCause): TokenView[] {
    const views = rows.map((row) => {
      const token = this.store.hydrate(row);
      const transform = caller.policy.transformFor(permission, token.containers) ?? 'redact';
      return this.tokens.view(token, masked ? withoutPlaintext(transform) : transform, { stored: true });
    });
    if (readBy) raiseRead(this.store.outbox, views.filter((view) => view.data !== undefined), readBy);
    return views;
  }

  async pageV1(caller: Caller, permission: Permission, filter: TokenFilter, page: number, size: number, readBy?: EventCause): Promise<V1Page> {
    // Both read before either is awaited: on SQLite in one turn, as one snapshot of the vault.
    const counted = this.count(caller, permission, filter);
    const found = this.search(offsetPage(this.where(caller, permission, filter), page, size));
    const [total, rows] = await Promise.all([counted, found]);
    return {
      pagination: { total_items: total, page_number: page, page_size: size, total_pages: Math.ceil(total / size) },
      data: this.read(this.views(rows, caller, permission, false, readBy)),
    };
  }

  /** A wire API page's tokens count as read (monthly active tokens); the workbench's own pages do not. */
  private read(views: TokenView[]): TokenView[] {
    this.tokens.markRead(views);
    return views;
  }

  async pageV2(caller: Caller, permission: Permission, filter: TokenFilter, start: string | undefined, size: number, readBy?: EventCause): Promise<V2Page> {
    const { rows, next } = cursorRows(await this.search(cursorPage(this.where(caller, permission, filter), start, size, 'oldest', false)), size);
    return { pagination: { next, page_size: size }, data: this.read(this.views(rows, caller, permission, false, readBy)) };
  }

  /**
   * The workbench's list: newest first, a cursor like v2's, data never in plaintext. `matches`, the filter's count when
   * the caller has it, lets the page be read in list order when that reads fewer rows: about size × live ÷ matches of
   * them, where SQLite's own plan would read and sort every match (`type:card`, a third of a large vault, even after
   * ANALYZE).
   */
  async pageNewest(
    caller: Caller,
    permission: Permission,
    filter: TokenFilter,
    start: string | undefined,
    size: number,
    matches?: number,
  ): Promise<{ next: string | null; data: TokenView[] }> {
    const inOrder = matches !== undefined && matches > 0 && matches * matches >= size * (await this.store.count());
    const { rows, next } = cursorRows(await this.search(cursorPage(this.where(caller, permission, filter, inOrder), start, size, 'newest', inOrder)), size);
    return { next, data: this.views(rows, caller, permission, true) };
  }

  /** How many tokens a search matches (the workbench shows it; the wire API's v2 pages do not count). */
  count(caller: Caller, permission: Permission, filter: TokenFilter): number | Promise<number> {
    const where = this.where(caller, permission, filter);
    return this.store.countMatching(where.countSql, where.params);
  }
}
