/**
 * Finds `{{ … }}` expressions in raw text without changing a byte of it. A codec says how the raw text
 * encodes characters (plain, form-urlencoded, inside a JSON string literal), so `%7B%7B id %7D%7D` in a
 * form body or `\"` inside a JSON string are read as what they mean while positions stay raw.
 * `{%` tags are never looked at: only `{{` opens an expression.
 */
import { isUtf8 } from 'node:buffer';
import { ExpressionError, UnclosedExpression, brief } from './expression-error';

export interface Codec {
  /** Character code of the unit at `pos`, or -1 for one that can never be part of the syntax. */
  charAt(text: string, pos: number): number;
  /** Raw position after the unit at `pos`. */
  unitEnd(text: string, pos: number): number;
  /** The characters a raw slice stands for; throws on malformed input. */
  decode(raw: string): string;
}

export const PLAIN: Codec = {
  charAt: (text, pos) => text.charCodeAt(pos),
  unitEnd: (_text, pos) => pos + 1,
  decode: (raw) => raw,
};

const HEX2 = /^[0-9a-fA-F]{2}$/;

export const FORM: Codec = {
  charAt(text, pos) {
    const c = text.charCodeAt(pos);
    if (c === 0x2b) return 0x20; // '+' is a space
    if (c !== 0x25 || !HEX2.test(text.slice(pos + 1, pos + 3))) return c;
    const byte = parseInt(text.slice(pos + 1, pos + 3), 16);
    return byte < 0x80 ? byte : -1; // a UTF-8 continuation never forms syntax
  },
  unitEnd: (text, pos) => (text.charCodeAt(pos) === 0x25 && HEX2.test(text.slice(pos + 1, pos + 3)) ? pos + 3 : pos + 1),
  decode: (raw) => decodeURIComponent(raw.replace(/\+/g, ' ')),
};

const JSON_ESCAPES: Record<string, number> = { '"': 0x22, '\\': 0x5c, '/': 0x2f, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };

const NEEDS_JSON_DECODE = /[\\\x00-\x1f]/;

export const JSON_STRING: Codec = {
  charAt(text, pos) {
    if (text.charCodeAt(pos) !== 0x5c) return text.charCodeAt(pos);
    const kind = text[pos + 1];
    if (kind !== 'u') return JSON_ESCAPES[kind] ?? -1;
    const code = parseInt(text.slice(pos + 2, pos + 6), 16);
    return Number.isNaN(code) ? -1 : code;
  },
  unitEnd: (text, pos) => (text.charCodeAt(pos) !== 0x5c ? pos + 1 : text[pos + 1] === 'u' ? pos + 6 : pos + 2),
  // Without an escape or a control character (which JSON.parse would refuse) the raw text is what it means.
  decode: (raw) => (NEEDS_JSON_DECODE.test(raw) ? (JSON.parse(`"${raw}"`) as string) : raw),
};

/** Raw extent of one `{{ … }}`, and the codec its text is written in. */
export interface ExpressionSpan {
  readonly start: number;
  readonly end: number;
  readonly codec: Codec;
}

const OPEN = 0x7b;
const CLOSE = 0x7d;
const PIPE = 0x7c;
const QUOTES = new Set([0x22, 0x27]);

export function opensExpression(text: string, pos: number, limit: number, codec: Codec): boolean {
  if (codec.charAt(text, pos) !== OPEN) return false;
  const next = codec.unitEnd(text, pos);
  return next < limit && codec.charAt(text, next) === OPEN;
}

/**
 * Raw position after the `}}` closing the expression opened at `start`. Quoted filter arguments may
 * hold `}}`; quotes before the first `|` are not string delimiters, since a token id may contain one.
 */
export function expressionEnd(text: string, start: number, limit: number, codec: Codec): number {
  let pos = codec.unitEnd(text, codec.unitEnd(text, start));
  let inFilters = false;
  let quote = -1;
  while (pos < limit) {
    const c = codec.charAt(text, pos);
    const next = codec.unitEnd(text, pos);
    if (quote !== -1) {
      if (c === quote) quote = -1;
    } else if (inFilters && QUOTES.has(c)) {
      quote = c;
    } else if (c === CLOSE && next < limit && codec.charAt(text, next) === CLOSE) {
      return codec.unitEnd(text, next);
    }
    if (c === PIPE) inFilters = true;
    pos = next;
  }
  throw new UnclosedExpression(brief(text.slice(start, limit)), start, limit);
}

/**
 * Calls `found` with the raw extent of each expression between `start` and `limit`, in order. A callback, not an
 * array: the caller keeps its own list, and a fresh array per JSON string would be most of the memory placing an
 * expression takes.
 */
export function forEachExpression(text: string, start: number, limit: number, codec: Codec, found: (start: number, end: number) => void): void {
  let pos = start;
  while (pos < limit) {
    // Plain text can only open an expression at a literal `{{`: a native search skips to it.
    if (codec === PLAIN) pos = text.indexOf('{{', pos);
    if (pos === -1 || pos >= limit) break;
    if (opensExpression(text, pos, limit, codec)) {
      const end = expressionEnd(text, pos, limit, codec);
      found(pos, end);
      pos = end;
    } else {
      pos = codec.unitEnd(text, pos);
    }
  }
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The expression's own text (`{{ … }}`, decoded from its codec).
 * @param bytesAsLatin1 `text` is a body read a byte per character (compileBodyBytes): the expression's own bytes are
 *   read back as UTF-8, which they must be (a filter argument such as `append: 'é'`)
 */
export function expressionSource(text: string, span: ExpressionSpan, bytesAsLatin1 = false): string {
  let raw = text.slice(span.start, span.end);
  if (bytesAsLatin1 && NON_ASCII.test(raw)) {
    const bytes = Buffer.from(raw, 'latin1');
    if (!isUtf8(bytes)) throw new ExpressionError(brief(raw), 'the expression is not valid UTF-8');
    raw = bytes.toString('utf8');
  }
  try {
    return span.codec.decode(raw);
  } catch {
    throw new ExpressionError(brief(raw), 'the expression is not validly encoded for this body');
  }
}

// Raw or percent-encoded braces: paths and query strings arrive encoded.
const ANY_EXPRESSION = /(?:\{|%7B){2}[\s\S]*?(?:\}|%7D){2}/i;

/** True when text holds something that looks like an expression (for "not detokenized here" warnings). */
export function containsExpression(text: string): boolean {
  return ANY_EXPRESSION.test(text);
}
