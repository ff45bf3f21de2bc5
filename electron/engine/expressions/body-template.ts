/**
 * A request body parsed once into literal text and token expressions; rendering substitutes the
 * tokens the vault looked up and encodes each result for where it sits (see body-placement).
 */
import type { BodyKind } from './body-kind';
import { type Placement, placeExpressions } from './body-placement';
import { ExpressionBudget } from './expression-budget';
import { ExpressionError } from './expression-error';
import { expressionSource } from './expression-scanner';
import type { LiquidRuntime } from './liquid-runtime';
import { formEncode, isStructured, jsonStringContent, toJsonLiteral, toText } from './rendered-value';
import { type Segments, interleave, joinSegments, loneSlot } from './segments';
import type { TokenRecord } from './token-record';
import { ENCRYPTED_KEY, HEAD_VARIABLE, type TokenExpression } from './token-reference';

export interface CompiledBody {
  /** Number of expressions, for the per-request expression limit (docs/api.md, Limits). */
  readonly expressionCount: number;
  /** Distinct token ids referenced, so the vault can fetch them all in one query (not those a transform makes). */
  readonly tokenIds: readonly string[];
  /**
   * Missing id in `tokens` → ExpressionError naming it. `budget`: the request's (a fresh one by default).
   * `values`, when given, receives each expression's result as evaluated, before it is encoded for its place (the
   * proxy's history masks them wherever the destination echoes one).
   */
  render(tokens: ReadonlyMap<string, TokenRecord>, budget?: ExpressionBudget, values?: unknown[]): string;
  /**
   * render() as UTF-8, over `source`, the body's bytes in the chunks they arrived in. The template's character offsets
   * must be byte offsets: a template compiled from bytes (compileBodyBytes), or from ASCII text. The part it was
   * compiled from comes first, rendered into one buffer that copies its literal text from `source`; the rest of the
   * body (when it was compiled from a first part) follows as views of `source`. A large body is neither joined, nor
   * built as a string and encoded again.
   */
  renderBytes(tokens: ReadonlyMap<string, TokenRecord>, source: readonly Buffer[], budget?: ExpressionBudget, values?: unknown[]): Buffer[];
  /**
   * The first `limit` bytes of the body as render() or renderBytes() (with their `source`) writes it, but with the
   * given result in place of each expression's (in the order render's `values` receives them), none evaluated: history
   * writes its masked view of a body from the values the render produced, at no second evaluation.
   */
  renderResults(results: readonly unknown[], limit: number, source?: readonly Buffer[]): string;
  /**
   * Each expression's result over `tokens`, in the order render's `values` receives them, without writing the body;
   * undefined for one that fails (its token missing, a filter refusing what the token holds).
   */
  evaluateEach(tokens: ReadonlyMap<string, TokenRecord>): unknown[];
  /**
   * The `index`th expression (as render's `values` count them): its text, and where it sits in the text the template
   * was compiled from (bytes, for a template compiled from them).
   */
  expressionAt(index: number): { source: string; start: number; end: number };
}

interface Slot {
  readonly expression: TokenExpression;
  readonly placement: Placement;
  /** Length of the raw text the result replaces. */
  readonly replaces: number;
  /** Where the expression itself sits, in the units of the text the template was compiled from. */
  readonly start: number;
  readonly end: number;
}


/** `value` encoded for where `slot` sits, charged to the budget as written. */
export function written(slot: Pick<Slot, 'expression' | 'placement'>, value: unknown, budget: ExpressionBudget): string {
  const text = encode(slot.placement, value);
  budget.written(text.length, slot.expression.source);
  return text;
}

/**
 * Evaluates body expressions over their tokens within one scope and budget (a render's, or a check's): an expression
 * sees the token's data, or with `token:` the whole token.
 */
export function tokenEvaluator(runtime: LiquidRuntime, budget: ExpressionBudget): (expression: TokenExpression, token: TokenRecord) => unknown {
  const variables: Record<string, unknown> = {};
  const scope = runtime.scope(variables, budget);
  return (expression, token) => {
    variables[HEAD_VARIABLE] = headOf(expression, token);
    return runtime.evaluate(expression, scope);
  };
}

/** What a body expression's head stands for: the token's data, or with `token:` the whole token. */
export const headOf = (expression: TokenExpression, token: TokenRecord): unknown => (expression.ref.whole ? token : token.data);

function encode(placement: Placement, value: unknown): string {
  switch (placement) {
    case 'text':
      return toText(value);
    case 'form':
      return formEncode(toText(value));
    case 'json-string':
      return jsonStringContent(toText(value));
    case 'json-whole-string':
      return isStructured(value) ? JSON.stringify(value) : `"${jsonStringContent(toText(value))}"`;
    case 'json-bare':
      return toJsonLiteral(value);
  }
}

/** Reads a body's chunks front to back, as if they were one buffer. */
class ChunkReader {
  private chunk = 0;
  private offset = 0;

  constructor(private readonly chunks: readonly Buffer[]) {}

  /** Copies the next `length` bytes into `out` at `at`; returns where the copy ends. */
  copy(out: Buffer, at: number, length: number): number {
    this.pass(length, (source, from, to) => (at += source.copy(out, at, from, to)));
    return at;
  }

  skip(length: number): void {
    this.pass(length);
  }

  /** The bytes not read yet, as views of the chunks. */
  rest(): Buffer[] {
    if (this.chunk >= this.chunks.length) return [];
    const [first, ...others] = this.chunks.slice(this.chunk);
    return [this.offset === 0 ? first : first.subarray(this.offset), ...others];
  }

  /** Moves past the next `length` bytes, showing each chunk's share of them to `piece`. */
  private pass(length: number, piece?: (source: Buffer, from: number, to: number) => void): void {
    while (length > 0) {
      const source = this.chunks[this.chunk];
      const take = Math.min(length, source.length - this.offset);
      piece?.(source, this.offset, this.offset + take);
      this.offset += take;
      length -= take;
      if (this.offset === source.length) {
        this.chunk++;
        this.offset = 0;
      }
    }
  }
}

export class BodyTemplate implements CompiledBody {
  readonly expressionCount: number;
  readonly tokenIds: readonly string[];

  private constructor(
    private readonly segments: Segments<Slot>,
    private readonly runtime: LiquidRuntime,
    /** Length of the text compiled: the whole body, or its first part. */
    private readonly compiledLength: number,
  ) {
    // One pass, no intermediate lists: this runs for every new body.
    const ids = new Set<string>();
    let count = 0;
    for (const segment of segments) {
      if (typeof segment === 'string') continue;
      count++;
      if (!segment.expression.ref.made) ids.add(segment.expression.ref.id);
    }
    this.expressionCount = count;
    this.tokenIds = [...ids];
  }

  /**
   * @param bytesAsLatin1 see expressionSource; such a template renders only with renderBytes
   * @param complete see placeExpressions; false for a body's first part, which renders only with renderBytes
   */
  static compile(
    text: string,
    kind: BodyKind,
    runtime: LiquidRuntime,
    compileExpression: (source: string) => TokenExpression,
    bytesAsLatin1 = false,
    complete = true,
  ): BodyTemplate {
    const segments = interleave(text, placeExpressions(text, kind, complete), (p) => ({
      expression: compileExpression(expressionSource(text, p, bytesAsLatin1)),
      placement: p.placement,
      replaces: p.replaceEnd - p.replaceStart,
      start: p.start,
      end: p.end,
    }));
    return new BodyTemplate(segments, runtime, text.length);
  }

  render(tokens: ReadonlyMap<string, TokenRecord>, budget = new ExpressionBudget(), values?: unknown[]): string {
    const evaluate = this.evaluator(tokens, budget, values);
    return joinSegments(this.segments, (slot) => written(slot, evaluate(slot.expression), budget));
  }

  renderBytes(tokens: ReadonlyMap<string, TokenRecord>, source: readonly Buffer[], budget = new ExpressionBudget(), values?: unknown[]): Buffer[] {
    const evaluate = this.evaluator(tokens, budget, values);
    const encoded: string[] = [];
    let size = this.compiledLength;
    for (const segment of this.segments) {
      if (typeof segment === 'string') continue;
      const value = written(segment, evaluate(segment.expression), budget);
      encoded.push(value);
      size += Buffer.byteLength(value) - segment.replaces;
    }
    const out = Buffer.allocUnsafe(size);
    const literal = new ChunkReader(source);
    let to = 0;
    let next = 0;
    for (const segment of this.segments) {
      if (typeof segment === 'string') {
        to = literal.copy(out, to, segment.length);
      } else {
        to += out.write(encoded[next++], to);
        literal.skip(segment.replaces);
      }
    }
    return [out, ...literal.rest()];
  }

  renderResults(results: readonly unknown[], limit: number, source?: readonly Buffer[]): string {
    const budget = new ExpressionBudget();
    let next = 0;
    if (!source) {
      let out = '';
      for (const segment of this.segments) {
        if (out.length >= limit) break;
        out += typeof segment === 'string' ? segment : written(segment, results[next++], budget);
      }
      return out.slice(0, limit);
    }
    // Bytes: a literal's length counts its bytes, which are copied from `source` (the template holds them as Latin-1).
    const literal = new ChunkReader(source);
    const pieces: Buffer[] = [];
    let size = 0;
    for (const segment of this.segments) {
      if (size >= limit) break;
      let piece: Buffer;
      if (typeof segment === 'string') {
        // Only as much of a literal as the view keeps: past it nothing more is read.
        piece = Buffer.allocUnsafe(Math.min(segment.length, limit - size));
        literal.copy(piece, 0, piece.length);
      } else {
        piece = Buffer.from(written(segment, results[next++], budget));
        literal.skip(segment.replaces);
      }
      pieces.push(piece);
      size += piece.length;
    }
    for (const rest of literal.rest()) {
      if (size >= limit) break;
      pieces.push(rest);
      size += rest.length;
    }
    return Buffer.concat(pieces, Math.min(size, limit)).toString('utf8');
  }

  evaluateEach(tokens: ReadonlyMap<string, TokenRecord>): unknown[] {
    const evaluate = this.evaluator(tokens, new ExpressionBudget());
    const results: unknown[] = [];
    for (const segment of this.segments) {
      if (typeof segment === 'string') continue;
      try {
        results.push(evaluate(segment.expression));
      } catch {
        results.push(undefined);
      }
    }
    return results;
  }

  expressionAt(index: number): { source: string; start: number; end: number } {
    let seen = 0;
    for (const segment of this.segments) {
      if (typeof segment !== 'string' && seen++ === index) return { source: segment.expression.source, start: segment.start, end: segment.end };
    }
    throw new RangeError(`The body has no expression ${index}`);
  }

  /** For a string inside parsed JSON (/detokenize): a lone expression's object or array result is kept as a value. */
  renderValue(tokens: ReadonlyMap<string, TokenRecord>, budget: ExpressionBudget): unknown {
    const lone = loneSlot(this.segments);
    if (!lone) return this.render(tokens, budget);
    const value = this.evaluator(tokens, budget)(lone.expression);
    const text = toText(value);
    budget.written(text.length, lone.expression.source);
    return isStructured(value) ? value : text;
  }

  private evaluator(tokens: ReadonlyMap<string, TokenRecord>, budget: ExpressionBudget, values?: unknown[]): (expression: TokenExpression) => unknown {
    const evaluate = tokenEvaluator(this.runtime, budget);
    return (expression) => {
      const token = tokens.get(expression.ref.id);
      if (!token) throw new ExpressionError(expression.source, expression.ref.id === ENCRYPTED_KEY ? 'encrypted reads the PFX-ENCRYPTED header (BT-ENCRYPTED by default), which this request does not carry' : `token "${expression.ref.id}" was not found`);
      const value = evaluate(expression, token);
      values?.push(value);
      return value;
    };
  }
}
