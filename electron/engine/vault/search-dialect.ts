import { jsLowerParams, jsLowerSql } from '../storage/postgres/js-lower';
import type { SqlDialect } from '../storage/unit';
import { UNICODE_LOWER } from '../storage/database';

/** What a clause needs of the statement it goes into: a placeholder for a value, and the statement's parameters. */
export interface Binder {
  bind(value: unknown): string;
  readonly params: Record<string, unknown>;
}

/**
 * Where the token search's SQL differs between SQLite and PostgreSQL (vault/token-queries.ts builds the rest once).
 * Text compares byte by byte on both (SQLite's BINARY, PostgreSQL's `COLLATE "C"` columns), so equality, ranges and
 * the `(created_at, id)` order and cursors are written once.
 */
export interface SearchSql {
  /** A constant true. */
  readonly always: string;
  /** `column` equals the text `value`; NULL where the column is, as `=` is. */
  equals(b: Binder, column: string, value: string): string;
  /** The token's id is one of `ids`. */
  idIn(b: Binder, ids: readonly string[]): string;
  /** A row source of the token's container paths as `c.value`. */
  readonly containers: string;
  /** A row source of the token's metadata entries as `m.key` and `m.value`. */
  readonly metadataEntries: string;
  /** A metadata key or value to compare with `m.key` or `m.value`. */
  metadataText(b: Binder, text: string): string;
  /** `m.key` or `m.value` lower-cased as JavaScript's `toLowerCase` does. */
  lower(b: Binder, expr: string): string;
}

const SQLITE: SearchSql = {
  always: '1',
  equals: (b, column, value) => `${column} = ${b.bind(value)}`,
  idIn: (b, ids) => `id IN (SELECT value FROM json_each(${b.bind(JSON.stringify(ids))}))`,
  containers: 'json_each(tokens.containers) c',
  metadataEntries: 'json_each(tokens.metadata) m',
  metadataText: (b, text) => b.bind(text),
  lower: (_, expr) => `${UNICODE_LOWER}(${expr})`,
};

const hasNul = (text: string) => text.includes('\u0000');

/**
 * PostgreSQL's JSON functions refuse to decode `\u0000` (its text holds no NUL) and a lone surrogate's escape, which
 * JSON.stringify writes for such metadata. Before decoding, each of those escapes, and each escaped backslash, gets a
 * backslash of its own, so a decoded key or value is the stored one with `\` doubled and NUL written `\u0000` (and a
 * lone surrogate `\udxxx`, which no sought text is, as on SQLite, where a bound lone surrogate is U+FFFD).
 */
const METADATA_DECODABLE = String.raw`CASE WHEN strpos(tokens.metadata, '\') = 0 THEN tokens.metadata
  ELSE regexp_replace(tokens.metadata, '\\(?:(\\)|(u0000|ud[89a-f][0-9a-f]{2}))', '\\\\\1\1\2', 'g') END`;
/** A sought metadata text as METADATA_DECODABLE decodes the same stored text. */
const decodableText = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('\u0000', '\\u0000');

const POSTGRES: SearchSql = {
  always: 'TRUE',
  // PostgreSQL's text holds no NUL, so no stored value equals one that has it; the parameter would be refused.
  equals: (b, column, value) => (hasNul(value) ? `(${column} <> ${column})` : `${column} = ${b.bind(value)}`),
  idIn: (b, ids) => `id = ANY(${b.bind(ids.filter((id) => !hasNul(id)))}::text[])`,
  containers: 'json_array_elements_text(tokens.containers::json) c(value)',
  metadataEntries: `json_each_text((${METADATA_DECODABLE})::json) m`,
  metadataText: (b, text) => b.bind(decodableText(text)),
  lower: (b, expr) => {
    Object.assign(b.params, jsLowerParams());
    return jsLowerSql(expr);
  },
};

export const SEARCH_SQL: Record<SqlDialect, SearchSql> = { sqlite: SQLITE, postgres: POSTGRES };
