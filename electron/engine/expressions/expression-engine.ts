/**
 * Entry point for both callers of the expression language: request bodies that name tokens by id
 * (proxy, /detokenize) and templates over one token (vault masks, fingerprints, search indexes).
 * Everything is parsed once and kept in LRU caches, so the per-request work is scanning a new body
 * (when it was not seen before) and evaluating already parsed filter chains.
 */
import type { BodyKind } from './body-kind';
import { type InspectedExpression, inspectExpressions } from './body-inspection';
import { PastTheText, type Placement, lastMarkerAt, mayHoldExpressions, withoutCutMarker } from './body-placement';
import { BodyTemplate, type CompiledBody, headOf, tokenEvaluator, written } from './body-template';
import { type EmptyCause, emptyCause } from './empty-result';
import { ExpressionBudget } from './expression-budget';
import { ExpressionError } from './expression-error';
import { type CompiledExpression, LiquidRuntime } from './liquid-runtime';
import { LruCache, RepeatCache } from '../lru-cache';
import { ApiProblem } from '../server/problem';
import type { TokenRecord } from './token-record';
import { writesNothing } from './rendered-value';
import { HEAD_VARIABLE, type TokenExpression, compileTokenExpression, liquidTextOf } from './token-reference';
import { compileHeaderTemplate } from './header-template';
import { type TemplateScope, TokenTemplate } from './token-template';

export interface ExpressionEngineOptions {
  /** Entries per cache (bodies, expressions, token templates); 0 disables caching. Default 1000. */
  cacheSize?: number;
  /** Expressions one request may hold, a proxy body and a /detokenize body alike (`--max-expressions`). Default 20. */
  maxExpressions?: number;
}

/** The hosted service detokenizes at most this many expressions per request (its proxies docs): the default limit. */
export const HOSTED_EXPRESSION_LIMIT = 20;

/** Read past a body's last marker, so that the expression it opens is closed within the part read. */
const FIRST_PART_MARGIN = 1024;
/** Bodies up to this size are cached by their text; larger ones are compiled every time. */
const MAX_CACHED_BODY_CHARS = 16 * 1024;
/** Bodies seen once are kept, per kind, among the last this many (half as many at least), in case they come back. */
const BODIES_ON_TRIAL = 64;
/** Less than this left unread is not worth reading in two steps. */
const MIN_TAIL_LEFT_UNREAD = 4096;

/** The first `length` bytes of `chunks`, a character per byte. */
function latin1(chunks: readonly Buffer[], length: number): string {
  if (chunks.length === 1) return chunks[0].toString('latin1', 0, length);
  const parts: string[] = [];
  for (let i = 0, left = length; i < chunks.length && left > 0; left -= chunks[i++].length) {
    parts.push(chunks[i].toString('latin1', 0, Math.min(left, chunks[i].length)));
  }
  return parts.join('');
}

/** A copy of `text` apart from the string it was sliced from: prefixing makes a new string, slicing flattens it. */
const detached = (text: string): string => ` ${text}`.slice(1);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Rebuilds parsed JSON with every string leaf mapped; object keys are kept as they are. */
function mapStrings(value: unknown, map: (text: string) => unknown): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  // fromEntries defines own properties, so a "__proto__" key stays a plain key.
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  return value;
}

/** What an expression writes into its body, and when that is nothing, why. */
export interface WrittenExpression {
  text: string;
  empty: EmptyCause | null;
}

export class ExpressionEngine {
  private readonly runtime = new LiquidRuntime();
  /**
   * Per body kind, keyed by the body's text as is (a combined key would copy every body once more). Only bodies sent
   * again are kept for long: real bodies carry new ids and amounts, and caching each one would keep it alive until a
   * full collection.
   */
  private readonly bodies: Record<BodyKind, RepeatCache<string, BodyTemplate>>;
  private readonly expressions: LruCache<string, TokenExpression>;
  /**
   * Filter chains by their text (`| json: '$.number'`). Real traffic names a different customer's tokens in every
   * request, so most expressions are new while their chains are few, and each chain is parsed only once.
   */
  private readonly chains: LruCache<string, CompiledExpression>;
  private readonly tokenTemplates: LruCache<string, TokenTemplate>;
  private readonly headerTemplates: LruCache<string, TokenTemplate>;
  /** Expressions one request may hold (`--max-expressions`, or Settings while running). */
  private maxExpressions: number;
  /** The budget of the request whose token templates are being rendered (see withBudget). */
  private shared: ExpressionBudget | undefined;
  private readonly compileChain = (source: string, filters: string): CompiledExpression =>
    this.chains.getOrCreate(filters, () => this.runtime.compile(source, liquidTextOf(filters)));
  private readonly compileExpression = (source: string): TokenExpression => {
    const cached = this.expressions.get(source);
    if (cached !== undefined) return cached;
    // A copy apart from the body it was sliced from: V8 shares a slice's characters with its parent, so a cached
    // expression, and the chain and id sliced from it, would keep its whole body alive. Only what is cached is
    // copied: a lookup slices the body and copies nothing.
    const own = detached(source);
    const expression = compileTokenExpression(own, this.compileChain);
    this.expressions.add(own, expression);
    return expression;
  };

  constructor(options: ExpressionEngineOptions = {}) {
    const size = options.cacheSize ?? 1000;
    const bodyCache = () => new RepeatCache<string, BodyTemplate>(size, BODIES_ON_TRIAL);
    this.bodies = { json: bodyCache(), form: bodyCache(), text: bodyCache() };
    this.expressions = new LruCache(size);
    this.chains = new LruCache(size);
    this.tokenTemplates = new LruCache(size);
    this.headerTemplates = new LruCache(size);
    this.maxExpressions = options.maxExpressions ?? HOSTED_EXPRESSION_LIMIT;
  }

  /** Changes the limit while running (Settings): the next request is held to it. */
  setExpressionLimit(limit: number): void {
    this.maxExpressions = limit;
  }

  /** The limit now: the Composer flags the first expression over it. */
  get expressionLimit(): number {
    return this.maxExpressions;
  }

  /** A 400 naming the limit when a request's body holds more expressions than one request may. */
  checkExpressionCount(count: number, limit = this.maxExpressions): void {
    if (count > limit) {
      throw new ApiProblem(400, `The body holds ${count} expressions; at most ${limit} are detokenized per request`);
    }
  }

  /**
   * Runs `work`, which renders token templates (a token write's mask, fingerprint and search indexes; a tokenize's
   * tokens), with one budget for all of them: one request's. Inside another such run, that run's budget is used.
   */
  withBudget<T>(work: () => T): T {
    if (this.shared) return work();
    this.shared = new ExpressionBudget();
    try {
      return work();
    } finally {
      this.shared = undefined;
    }
  }

  /** Parses a request body once (cached by kind and text); throws ExpressionError for a bad expression. */
  compileBody(text: string, kind: BodyKind): CompiledBody {
    return this.bodyTemplate(text, kind);
  }

  /**
   * A body compiled from its bytes, read one per character (latin1), in the chunks it arrived in: every byte outside
   * the expressions is kept, UTF-8 or not (a multipart upload with a binary file part), and the body is never joined
   * or decoded as UTF-8. Only expressions need be UTF-8, and every character that forms their syntax is ASCII. Render
   * it with renderBytes over the same chunks. Not cached: such bodies are large, or rare.
   *
   * `reach`, the body's markersEnd: only the bytes up to a little past it are read when much of the body lies beyond,
   * for no expression opens there (a tokenized field in front of a large upload). Where that first part is not
   * enough (an expression that does not end within it), the whole body is read instead.
   */
  compileBodyBytes(chunks: readonly Buffer[], kind: BodyKind, reach = Infinity): CompiledBody {
    let size = 0;
    for (const chunk of chunks) size += chunk.length;
    const part = reach + FIRST_PART_MARGIN;
    if (size - part >= MIN_TAIL_LEFT_UNREAD) {
      try {
        return BodyTemplate.compile(latin1(chunks, part), kind, this.runtime, this.compileExpression, true, false);
      } catch (error) {
        // Read again whole below, where a real error in the body is raised again, over all of it.
        if (!(error instanceof PastTheText || error instanceof ExpressionError)) throw error;
      }
    }
    return BodyTemplate.compile(latin1(chunks, size), kind, this.runtime, this.compileExpression, true);
  }

  /**
   * The first part of a body, as history keeps a large one: a template of the part up to the first expression that
   * cannot be placed without what lies past the part's end (one cut off, even within its `{{`, or sitting in a JSON
   * string the cut leaves open). It renders that much, so a masked view of the part never shows a piece of an
   * expression as if it were text; a string that is exactly such an expression may leave its opening quote.
   */
  compileBodyStart(text: string, kind: BodyKind): CompiledBody {
    for (let part = withoutCutMarker(text, kind); ; ) {
      try {
        return BodyTemplate.compile(part, kind, this.runtime, this.compileExpression, false, false);
      } catch (error) {
        if (!(error instanceof PastTheText || error instanceof ExpressionError)) throw error;
        // Each step leaves the last marker out, so this ends; none left means the error is not the cut's.
        const at = lastMarkerAt(part, kind);
        if (at === -1) throw error;
        part = withoutCutMarker(part.slice(0, at), kind);
      }
    }
  }

  /** The body's expressions one by one, each compiled or with why it does not compile (the workbench's checks). */
  inspectBody(text: string, kind: BodyKind): InspectedExpression[] {
    return inspectExpressions(text, kind, this.compileExpression);
  }

  /**
   * Writes compiled expressions (from inspectBody) as a render of their body would: each evaluated over its token and
   * encoded for its place, all within `budget`; and when one writes nothing, why (the workbench's checks say so before
   * the request is sent). Throws the ExpressionError the render would.
   */
  expressionWriter(budget: ExpressionBudget): (placed: { expression: TokenExpression; placement: Placement }, token: TokenRecord) => WrittenExpression {
    const evaluate = tokenEvaluator(this.runtime, budget);
    return (placed, token) => {
      const value = evaluate(placed.expression, token);
      return { text: written(placed, value, budget), empty: writesNothing(value) ? this.whyEmpty(placed.expression, token) : null };
    };
  }

  /** Evaluated again filter by filter, within a budget of its own: an explanation is not the request's work. */
  private whyEmpty(expression: TokenExpression, token: TokenRecord): EmptyCause {
    const scope = this.runtime.scope({ [HEAD_VARIABLE]: headOf(expression, token) }, new ExpressionBudget());
    return emptyCause(this.runtime.jsonSteps(expression, scope), expression.ref.whole);
  }

  /** POST /detokenize: every string of the parsed JSON is a template, all rendered within one budget; keys are left alone. */
  detokenizeJson(value: unknown, tokens: ReadonlyMap<string, TokenRecord>): unknown {
    const budget = new ExpressionBudget();
    return mapStrings(value, (text) => this.bodyTemplate(text, 'text').renderValue(tokens, budget));
  }

  /**
   * What detokenizeJson will need: the ids to look up; a 400 when the body holds more expressions than a request may
   * (`limit`: a reactor's args have the vendor's own).
   */
  collectJsonTokenIds(value: unknown, limit = this.maxExpressions): { tokenIds: string[]; expressionCount: number } {
    const ids = new Set<string>();
    let expressionCount = 0;
    mapStrings(value, (text) => {
      const body = this.bodyTemplate(text, 'text');
      for (const id of body.tokenIds) ids.add(id);
      expressionCount += body.expressionCount;
    });
    this.checkExpressionCount(expressionCount, limit);
    return { tokenIds: [...ids], expressionCount };
  }

  /** A mask (any JSON whose strings are templates) evaluated over `token`; a lone expression keeps its JSON type. */
  renderTokenTemplate(template: unknown, token: TokenRecord): unknown {
    return this.renderTemplate(template, token);
  }

  /**
   * Any JSON whose strings are templates, evaluated over `scope` (a token, or a proxy transform's variables) within
   * the running request's budget; a string that is one expression keeps its result's JSON type.
   */
  renderTemplate(template: unknown, scope: TemplateScope, budget = this.budget()): unknown {
    return mapStrings(template, (text) => this.tokenTemplate(text).renderValue(scope, budget));
  }

  /** A fingerprint expression or search index over `token`, always as text. */
  renderTokenText(template: string, token: TokenRecord): string {
    return this.tokenTemplate(template).renderText(token, this.budget());
  }

  /** The running request's budget (withBudget), or one of its own for a render outside any (a read's mask). */
  private budget(): ExpressionBudget {
    return this.shared ?? new ExpressionBudget();
  }

  /** A header value's proxy expressions, parsed once (see compileHeaderTemplate); throws ExpressionError. */
  headerTemplate(text: string): TokenTemplate {
    return this.headerTemplates.getOrCreate(text, () => compileHeaderTemplate(text, this.runtime));
  }

  /** Parses every string of a mask / fingerprint expression / search index list; throws ExpressionError. */
  validateTokenTemplate(template: unknown): void {
    mapStrings(template, (text) => this.tokenTemplate(text));
  }

  private bodyTemplate(text: string, kind: BodyKind): BodyTemplate {
    const compile = (): BodyTemplate => BodyTemplate.compile(text, kind, this.runtime, this.compileExpression);
    if (!mayHoldExpressions(text, kind) || text.length > MAX_CACHED_BODY_CHARS) return compile();
    return this.bodies[kind].getOrCreate(text, compile);
  }

  private tokenTemplate(text: string): TokenTemplate {
    return this.tokenTemplates.getOrCreate(text, () => TokenTemplate.compile(text, this.runtime));
  }
}
