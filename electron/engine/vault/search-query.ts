/**
 * The token search query language of `POST /tokens/search` and `POST /v2/tokens/search`: the Lucene subset the
 * hosted service documents (its "What is Search" page). Terms `field:value`, quoted values, `\` escapes, AND / OR /
 * NOT (adjacent terms are ANDed), parentheses, and date ranges `[from TO to]` (inclusive) / `{from TO to}`
 * (exclusive) with `*` for an open end. Exact matches only: the service has no wildcards, so an unescaped `*` or `?`
 * in a value is refused rather than silently taken literally.
 *
 * The workbench's Tokens page takes more (its `workbench` dialect): the card fields, and words typed alone, which
 * search ids, metadata values, search index values and card details at once (search-terms.ts).
 *
 * Output is a pure AST; turning it into SQL is the repository's job. Errors are 400s whose message points at a
 * column (1-based) and never repeats the query's values, which may be plaintext card numbers or SSNs.
 */
import { CARD_SEARCH_FIELDS, SERVICE_SEARCH_FIELDS, type CardField, type SearchFieldInfo } from '../../../shared/workbench/token-search-fields';
import { ApiProblem } from '../server/problem';
import { normalizeContainer, validateContainer } from '../access/containers';
import { parseIsoInstant, type Instant } from './instants';
import { CARD_VALUE_RULE, cardFieldValue } from './search-terms';

export type DateField = 'created_at' | 'modified_at' | 'expires_at';
export type ExactField = 'id' | 'type' | 'fingerprint' | 'data' | 'created_by' | 'modified_by';

export type SearchNode =
  | { kind: 'and' | 'or'; children: SearchNode[] }
  | { kind: 'not'; child: SearchNode }
  /** `data` matches a value one of the token's search indexes evaluated to, never the data itself. */
  | { kind: 'term'; field: ExactField; value: string; match: 'exact' }
  /** The container or any container below it; the value is a validated, lower-cased container path. */
  | { kind: 'term'; field: 'container'; value: string; match: 'prefix' }
  | { kind: 'term'; field: 'metadata'; key: string; value: string; match: 'exact' }
  /** A card field (workbench dialect); the value as the card's own is indexed (2030-12, not 12/30). */
  | { kind: 'term'; field: CardField; value: string; match: 'exact' }
  /** A word typed alone (workbench dialect): an id, or any value search-terms.ts's textTerms reads it as. */
  | { kind: 'text'; value: string }
  /** Bounds are UTC ISO 8601 strings as `Date#toISOString` writes them; an absent bound is open. */
  | { kind: 'range'; field: DateField; from?: string; to?: string; fromInclusive: boolean; toInclusive: boolean };

/** The fields a query of the service's language may name. */
export function describeSearchFields(): readonly SearchFieldInfo[] {
  return SERVICE_SEARCH_FIELDS;
}

/** The service's language, or the Tokens page's, which adds card fields and words typed alone. */
export type SearchDialect = 'service' | 'workbench';

const FIELDS: Record<SearchDialect, readonly SearchFieldInfo[]> = {
  service: SERVICE_SEARCH_FIELDS,
  workbench: [...SERVICE_SEARCH_FIELDS, ...CARD_SEARCH_FIELDS],
};
const METADATA_PREFIX = 'metadata.';
const OPERATORS = ['AND', 'OR', 'NOT'] as const;
type Operator = (typeof OPERATORS)[number];
const MAX_DEPTH = 32;
/**
 * Terms one query may hold, and metadata filters one list request may give. Far above what a search needs; each term
 * is a clause SQLite evaluates per token, and about a thousand of them exceed its expression depth (a 500).
 */
export const MAX_SEARCH_TERMS = 100;
const DAY_MS = 86_400_000;

const FIELD_STOP = /[\s:()"]/;
// Ends a bare value and an operator word alike.
const TERM_END = /[\s()]/;
const RANGE_BOUND_STOP = /[\s\]}]/;
function combine(kind: 'and' | 'or', children: SearchNode[]): SearchNode {
  if (children.length === 1) return children[0];
  return { kind, children: children.flatMap((c) => (c.kind === kind ? c.children : [c])) };
}

class QueryParser {
  private pos = 0;
  private depth = 0;
  private terms = 0;
  private readonly valueKind: Map<string, SearchFieldInfo['value']>;
  private readonly fieldList: string;

  constructor(
    private readonly src: string,
    private readonly dialect: SearchDialect,
  ) {
    this.valueKind = new Map(FIELDS[dialect].map((f) => [f.field, f.value]));
    this.fieldList = FIELDS[dialect].map((f) => f.field).join(', ');
  }

  parse(): SearchNode | null {
    this.skipSpace();
    if (this.atEnd()) return null;
    const node = this.orExpr();
    // orExpr stops only at the end or at a ")" it did not open.
    if (!this.atEnd()) this.fail(`unexpected ")" at ${this.column(this.pos)}`);
    return node;
  }

  private orExpr(): SearchNode {
    const children = [this.andExpr()];
    while (this.acceptOperator('OR')) children.push(this.andExpr());
    return combine('or', children);
  }

  private andExpr(): SearchNode {
    const children = [this.unary()];
    for (;;) {
      this.skipSpace();
      if (this.atEnd() || this.peek() === ')' || this.peekOperator() === 'OR') break;
      this.acceptOperator('AND'); // optional: adjacent terms are ANDed
      children.push(this.unary());
    }
    return combine('and', children);
  }

  private unary(): SearchNode {
    this.skipSpace();
    const start = this.pos;
    if (this.acceptOperator('NOT')) return this.nested(start, () => ({ kind: 'not', child: this.unary() }));
    if (this.peek() !== '(') return this.term();
    this.pos++;
    return this.nested(start, () => {
      const inner = this.orExpr();
      if (this.peek() !== ')') this.fail(`missing ")" for the "(" at ${this.column(start)}`);
      this.pos++;
      return inner;
    });
  }

  private nested(start: number, parse: () => SearchNode): SearchNode {
    if (++this.depth > MAX_DEPTH) this.fail(`more than ${MAX_DEPTH} levels of nesting at ${this.column(start)}`);
    const node = parse();
    this.depth--;
    return node;
  }

  private term(): SearchNode {
    const start = this.pos;
    if (++this.terms > MAX_SEARCH_TERMS) this.fail(`a query holds at most ${MAX_SEARCH_TERMS} terms; term ${this.terms} is at ${this.column(start)}`);
    if (this.atEnd()) this.fail(`the query ends where a field:value term was expected (${this.column(start)})`);
    if (this.peek() === ')') this.fail(`unexpected ")" at ${this.column(start)}`);
    const operator = this.peekOperator();
    if (operator) this.fail(`${operator} at ${this.column(start)} where a field:value term was expected`);
    const field = this.readBare(FIELD_STOP, false);
    if (this.peek() !== ':') {
      if (this.dialect === 'workbench') {
        // Read again as a value: a word ends only at a space or parenthesis, and may be quoted.
        this.pos = start;
        return { kind: 'text', value: this.textValue() };
      }
      const hint = (OPERATORS as readonly string[]).includes(field.toUpperCase()) ? '; operators are upper-case (AND, OR, NOT)' : '';
      this.fail(`expected field:value at ${this.column(start)}${hint}`);
    }
    this.pos++;
    return this.fieldTerm(field, start);
  }

  private fieldTerm(field: string, start: number): SearchNode {
    if (field === 'metadata' || field.startsWith(METADATA_PREFIX)) {
      const key = field.slice(METADATA_PREFIX.length);
      if (!key) this.fail(`metadata at ${this.column(start)} needs a key: metadata.<key>:value`);
      return { kind: 'term', field: 'metadata', key, value: this.textValue(), match: 'exact' };
    }
    const kind = this.valueKind.get(field);
    if (!kind) this.fail(`unknown field at ${this.column(start)}; fields are ${this.fieldList}`);
    if (kind === 'date') return this.dateValue(field as DateField);
    if (this.peek() === '[' || this.peek() === '{') {
      this.fail(`ranges (${this.column(this.pos)}) work only on created_at, modified_at and expires_at`);
    }
    const valueStart = this.pos;
    const value = this.textValue();
    if (kind === 'text') return { kind: 'term', field: field as ExactField, value, match: 'exact' };
    if (kind === 'card') {
      const card = cardFieldValue(field as CardField, value);
      if (card === null) this.fail(`${field} at ${this.column(start)} ${CARD_VALUE_RULE[field as CardField]}`);
      return { kind: 'term', field: field as CardField, value: card, match: 'exact' };
    }
    const problem = validateContainer(value);
    if (problem) this.fail(`${problem} (${this.column(valueStart)})`);
    return { kind: 'term', field: 'container', value: normalizeContainer(value), match: 'prefix' };
  }

  private textValue(): string {
    const start = this.pos;
    if (this.peek() === '"') return this.quoted();
    const value = this.readBare(TERM_END, true);
    if (!value) this.fail(`missing value after ":" at ${this.column(start)}`);
    return value;
  }

  /** A single date is the whole day it names (a date) or that instant (a date-time); else a bracketed range. */
  private dateValue(field: DateField): SearchNode {
    const open = this.peek();
    if (open !== '[' && open !== '{') {
      const start = this.pos;
      const { ms, dateOnly } = this.instant(field, this.textValue(), start);
      const from = new Date(ms).toISOString();
      return dateOnly
        ? { kind: 'range', field, from, to: new Date(ms + DAY_MS).toISOString(), fromInclusive: true, toInclusive: false }
        : { kind: 'range', field, from, to: from, fromInclusive: true, toInclusive: true };
    }
    const start = this.pos++;
    const from = this.rangeBound(field);
    this.skipSpace();
    const toAt = this.pos;
    if (this.readBare(RANGE_BOUND_STOP, false) !== 'TO') this.fail(`expected TO at ${this.column(toAt)}`);
    const to = this.rangeBound(field);
    this.skipSpace();
    const close = this.peek();
    if (close !== ']' && close !== '}') this.fail(`missing "]" or "}" for the range opened at ${this.column(start)}`);
    this.pos++;
    return {
      kind: 'range',
      field,
      ...(from !== undefined && { from }),
      ...(to !== undefined && { to }),
      fromInclusive: open === '[',
      toInclusive: close === ']',
    };
  }

  /** One end of a range: `*` (open, undefined) or a date. */
  private rangeBound(field: DateField): string | undefined {
    this.skipSpace();
    const start = this.pos;
    const text = this.peek() === '"' ? this.quoted() : this.readBare(RANGE_BOUND_STOP, false);
    if (text === '*' && this.src[start] === '*') return undefined;
    return new Date(this.instant(field, text, start).ms).toISOString();
  }

  private instant(field: DateField, text: string, start: number): Instant {
    const instant = parseIsoInstant(text);
    if (!instant) this.fail(`${field} at ${this.column(start)} takes an ISO 8601 date or date-time, e.g. 2024-01-31 or 2024-01-31T12:00:00Z`);
    return instant;
  }

  /** A "…" value; `\` escapes the next character. */
  private quoted(): string {
    const start = this.pos++;
    let out = '';
    while (!this.atEnd()) {
      const c = this.src[this.pos++];
      if (c === '"') return out;
      out += c === '\\' ? this.escaped() : c;
    }
    return this.fail(`unterminated quoted value starting at ${this.column(start)}`);
  }

  /** Characters up to one matching `stop`; `\` escapes the next character. */
  private readBare(stop: RegExp, rejectWildcards: boolean): string {
    let out = '';
    while (!this.atEnd()) {
      const c = this.src[this.pos];
      if (c === '\\') {
        this.pos++;
        out += this.escaped();
        continue;
      }
      if (stop.test(c)) break;
      if (rejectWildcards && (c === '*' || c === '?')) {
        this.fail(`wildcards are not supported (${this.column(this.pos)}); write \\${c} or quote the value to search for "${c}" itself`);
      }
      out += c;
      this.pos++;
    }
    return out;
  }

  /** The character after a `\` (already consumed). */
  private escaped(): string {
    if (this.atEnd()) this.fail(`"\\" at ${this.column(this.pos - 1)} escapes nothing`);
    return this.src[this.pos++];
  }

  private peekOperator(): Operator | undefined {
    return OPERATORS.find((op) => {
      if (!this.src.startsWith(op, this.pos)) return false;
      const next = this.src[this.pos + op.length];
      return next === undefined || TERM_END.test(next);
    });
  }

  private acceptOperator(op: Operator): boolean {
    this.skipSpace();
    if (this.peekOperator() !== op) return false;
    this.pos += op.length;
    return true;
  }

  private skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.src[this.pos])) this.pos++;
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  private atEnd(): boolean {
    return this.pos >= this.src.length;
  }

  private column(pos: number): string {
    return `column ${pos + 1}`;
  }

  private fail(message: string): never {
    throw new ApiProblem(400, `Invalid search query: ${message}`, { query: [message] });
  }
}

/** Parses a search query; null for an empty (or all-blank) query, which matches every token. Throws a 400 ApiProblem. */
export function parseSearchQuery(query: string, dialect: SearchDialect = 'service'): SearchNode | null {
  return new QueryParser(query, dialect).parse();
}
