/**
 * The hosted service's filters beyond standard Liquid (docs/api.md, Expressions). Semantics follow its public
 * filter reference: `reveal_last` masks letters and digits only (so `123-45-6789` → `XXX-XX-6789`),
 * `reveal` masks every character outside the revealed ends, `hmac` yields bytes for `to_base64`/`to_base16`.
 * Errors are FilterFailures whose messages never contain the input value, nor any argument (an argument
 * may be a variable holding token data); the expression text already shows literal arguments.
 */
import { createHmac } from 'node:crypto';
import type { VaultFilterName } from '../../../shared/expressions/filters';
import { JSONPathEnvironment, JSONPathError, type JSONPathQuery } from 'json-p3';
import { BudgetExceeded, type ExpressionBudget, type FilterThis, budgetOf } from './expression-budget';
import { FilterFailure } from './expression-error';
import { MAX_JSONPATH_NESTING, filterNesting, shapeOf, visitBound } from './json-path-cost';
import { JsonText, bytesToHex, toJsonLiteral, toText } from './rendered-value';
import { readSimplePath, simplePathNames } from './simple-json-path';

type Filter = (this: FilterThis, value: unknown, ...args: unknown[]) => unknown;

const MASKABLE = /[\p{L}\p{N}]/u;
const HMAC_ALGORITHMS: Record<string, string> = { 'sha-1': 'sha1', 'sha-256': 'sha256', 'sha-512': 'sha512' };
const CARD_EXP_FORMAT = /^(?:YYYY|YY|MM|[-/_. ])+$/;
const CARD_EXP_PLACEHOLDER = /YYYY|YY|MM/g;

/** Text-like input as a string; null/undefined stay null (the documented "null in, null out"). */
function textOf(filter: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new FilterFailure(`${filter} expects a text value`);
}

function countArg(filter: string, name: string, value: unknown, fallback?: number): number {
  const n = value === undefined || value === null ? fallback : typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new FilterFailure(`${filter}: ${name} must be a whole number ≥ 0`);
  return n;
}

function charArg(filter: string, name: string, value: unknown, fallback: string): string {
  const c = value === undefined || value === null ? fallback : value;
  if (typeof c !== 'string' || [...c].length !== 1) throw new FilterFailure(`${filter}: ${name} must be one character`);
  return c;
}

/** Bytes for the encoders and hmac: `hmac` output as is, text as UTF-8. */
function bytesOf(filter: string, value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  const text = textOf(filter, value);
  if (text === null) throw new FilterFailure(`${filter} needs a value, got null`);
  return Buffer.from(text, 'utf8');
}

function pad(side: 'left' | 'right'): Filter {
  const name = `pad_${side}`;
  return function (this: FilterThis, value, length, padChar) {
    const text = textOf(name, value);
    if (text === null) return null;
    const n = countArg(name, 'length', length);
    const c = charArg(name, 'pad_char', padChar, '');
    budgetOf(this).use(n);
    return side === 'left' ? text.padStart(n, c) : text.padEnd(n, c);
  };
}

/**
 * RFC 9535 JSONPath, whose parser refuses a malformed path: a typo must fail, never widen what is sent
 * (`$[` would otherwise select the whole card). Without `match` and `search`, which would run a client's
 * regular expression over token data on the engine's only thread.
 */
const JSON_PATHS = new JSONPathEnvironment();
JSON_PATHS.functionRegister.delete('match');
JSON_PATHS.functionRegister.delete('search');

/**
 * `path` compiled. `literal`: the path is written in the expression, so the reason may quote it; a path that comes
 * from a variable could hold token data.
 */
export function compileJsonPath(path: unknown, literal: boolean): JSONPathQuery {
  if (typeof path !== 'string' || !path.trim().startsWith('$')) throw new FilterFailure('json needs a JSONPath starting with $');
  let query: JSONPathQuery;
  try {
    query = JSON_PATHS.compile(path.trim());
  } catch (error) {
    // json-p3 ends its messages with the path and offset: ` ('$[':2)`.
    const why = literal && error instanceof JSONPathError ? `: ${error.message.replace(/ \([^]*\)$/, '')}` : '';
    throw new FilterFailure(`the JSONPath does not parse${why}`);
  }
  const nesting = filterNesting(query);
  if (nesting > MAX_JSONPATH_NESTING) {
    throw new BudgetExceeded(`its JSONPath nests filters ${nesting} levels deep, more than ${MAX_JSONPATH_NESTING}`);
  }
  return query;
}

/**
 * The `json` filter for one path written in the expression, compiled once (callers evaluating one path many times
 * keep it). A path that does not parse gives a filter that fails with the reason.
 */
export function jsonFilterFor(path: unknown): (value: unknown, budget: ExpressionBudget) => unknown {
  let query: JSONPathQuery;
  try {
    query = compileJsonPath(path, true);
  } catch (failure) {
    return () => {
      throw failure;
    };
  }
  const names = simplePathNames(path as string);
  return (value, budget) => jsonPathValue(value, query, names, budget);
}

function json(this: FilterThis, value: unknown, path: unknown): unknown {
  return jsonPathValue(value, compileJsonPath(path, false), undefined, budgetOf(this));
}

/**
 * The one value `query` selects from `value`, or null when it selects none; `names` are its `simplePathNames`. A
 * query other than a plain path is charged the most nodes it could visit in `value` before it runs.
 */
export function jsonPathValue(value: unknown, query: JSONPathQuery, names: readonly string[] | undefined, budget: ExpressionBudget): unknown {
  if (value === null || value === undefined) return null;
  if (names) return readSimplePath(value, names);
  budget.step(visitBound(query, shapeOf(value)));
  const matches: unknown[] = [];
  try {
    for (const node of query.lazyQuery(value as never)) {
      if (matches.push(node.value) > 1) throw new FilterFailure('the JSONPath matches more than one value');
    }
  } catch (error) {
    if (error instanceof FilterFailure) throw error;
    throw new FilterFailure('the JSONPath cannot be evaluated');
  }
  return matches.length === 1 ? matches[0] : null;
}

function revealLast(value: unknown, length: unknown, maskChar: unknown): unknown {
  const text = textOf('reveal_last', value);
  if (text === null) return null;
  const n = countArg('reveal_last', 'length', length);
  const mask = charArg('reveal_last', 'mask_char', maskChar, 'X');
  const chars = [...text];
  if (chars.length <= n) return text;
  const hidden = chars.slice(0, chars.length - n).map((c) => (MASKABLE.test(c) ? mask : c));
  return hidden.join('') + chars.slice(chars.length - n).join('');
}

function reveal(value: unknown, first: unknown, last: unknown, maskChar: unknown, preserveChars: unknown): unknown {
  const text = textOf('reveal', value);
  if (text === null) return null;
  const head = countArg('reveal', 'reveal_first', first, 0);
  const tail = countArg('reveal', 'reveal_last', last, 0);
  const mask = charArg('reveal', 'mask_char', maskChar, 'X');
  const preserve = typeof preserveChars === 'string' ? preserveChars : '';
  const chars = [...text];
  const masked = chars.map((c, i) => (i < head || i >= chars.length - tail || preserve.includes(c) ? c : mask)).join('');
  // Revealing everything (or masking nothing) would leak the value: mask it whole instead.
  return chars.length <= head + tail || masked === text ? mask.repeat(chars.length) : masked;
}

function cardBin(value: unknown, separator: unknown): unknown {
  const text = textOf('card_bin', value);
  if (text === null) return null;
  const digits = typeof separator === 'string' && separator !== '' ? text.split(separator).join('') : text;
  return digits.slice(0, digits.length < 16 ? 6 : 8);
}

function expiryPart(value: unknown): number | null {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

function cardExp(value: unknown, format: unknown): unknown {
  if (typeof format !== 'string' || !CARD_EXP_FORMAT.test(format) || !format.match(CARD_EXP_PLACEHOLDER)) {
    throw new FilterFailure('card_exp: format must combine MM, YY or YYYY with - / _ . or space');
  }
  const card = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const month = expiryPart(card.expiration_month);
  const year = expiryPart(card.expiration_year);
  if (month === null || month < 1 || month > 12 || year === null) {
    throw new FilterFailure('card_exp expects card data with expiration_month and expiration_year');
  }
  const parts: Record<string, string> = {
    MM: String(month).padStart(2, '0'),
    YY: String(year % 100).padStart(2, '0'),
    YYYY: String(year).padStart(4, '0'),
  };
  return format.replace(CARD_EXP_PLACEHOLDER, (p) => parts[p]);
}

function toNumber(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === 'number') return value ?? null;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw new FilterFailure('to_number: value is not a number');
  return n;
}

function toBoolean(value: unknown): unknown {
  if (value === null || value === undefined || typeof value === 'boolean') return value ?? null;
  if (typeof value === 'number') return value !== 0;
  const word = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (word === 'true' || word === 'false') return word === 'true';
  throw new FilterFailure('to_boolean: value is not true or false');
}

function hmac(value: unknown, algorithm: unknown, key: unknown): Uint8Array {
  const digest = typeof algorithm === 'string' ? HMAC_ALGORITHMS[algorithm.toLowerCase()] : undefined;
  if (!digest) throw new FilterFailure(`hmac: algorithm must be one of ${Object.keys(HMAC_ALGORITHMS).join(', ')}`);
  if (typeof key !== 'string' || key === '') throw new FilterFailure('hmac: a key is required');
  return createHmac(digest, key).update(bytesOf('hmac', value)).digest();
}

/** One implementation per filter the shared catalog names (shared/expressions/filters.ts), none more. */
export const CUSTOM_FILTERS: Record<VaultFilterName, Filter> = {
  json,
  last4: (value) => {
    const text = textOf('last4', value);
    return text === null ? null : [...text].slice(-4).join('');
  },
  reveal_last: revealLast,
  reveal,
  card_bin: cardBin,
  card_exp: cardExp,
  pad_left: pad('left'),
  pad_right: pad('right'),
  to_number: toNumber,
  to_boolean: toBoolean,
  to_string: (value) => textOf('to_string', value),
  to_base64: (value) => Buffer.from(bytesOf('to_base64', value)).toString('base64'),
  to_base16: (value) => bytesToHex(bytesOf('to_base16', value)),
  hmac,
  // Strings as they are, everything else as JSON text (toText serializes objects).
  stringify: (value) => (value === null || value === undefined ? null : toText(value)),
  json_stringify: (value) => new JsonText(toJsonLiteral(value)),
};

/** Filters whose output is final text for the writer, so nothing may follow them. */
export const LAST_ONLY_FILTERS: ReadonlySet<string> = new Set(['json_stringify']);
