import type { Params, Query } from '../unit';

/** A query as PostgreSQL runs it: `$n` placeholders, and where the values of named parameters go. */
export interface PostgresStatement {
  /**
   * A prepared statement's name, unique per query, so one connection never holds two texts under one name; none for an
   * ad hoc query, which runs unnamed, so that connections do not keep one statement per search ever made.
   */
  readonly name: string | undefined;
  readonly text: string;
  /** The parameter names in `$n` order for a query with `@name`s; null where the parameters come as an array. */
  readonly names: readonly string[] | null;
  readonly pluck: boolean;
}

export class StatementTranslationError extends Error {}

/**
 * Where a placeholder may stand: outside string literals, quoted identifiers and comments. Each match is one of those
 * (skipped, but checked for placeholders inside) or a placeholder: `?` or `@name`.
 */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\?\d*|@[A-Za-z_][A-Za-z0-9_]*|[:$][A-Za-z0-9_]/g;

/**
 * Rewrites a query's text for PostgreSQL: `@name`s to `$1…` (each name one number, however often it appears), and in
 * SQLite's text `?`s to `$1…` in order. Nothing else: a query whose SQLite text needs more than that carries its
 * `postgres` form. A placeholder inside a literal or comment, SQLite's `:name`/`$name`/`?NNN` forms, or `?`s mixed with
 * `@name`s are refused, since a wrong guess would bind values to the wrong places.
 */
function translate(q: Query): { text: string; names: string[] | null } {
  const own = q.postgres !== undefined;
  const source = q.postgres ?? q.sql;
  const names: string[] = [];
  let questions = 0;
  const refuse = (why: string) =>
    new StatementTranslationError(`Query '${q.name}' cannot run on PostgreSQL as written (${why}): give it a postgres form`);
  const text = source.replace(TOKENS, (token) => {
    if (token[0] === "'" || token[0] === '"' || token.startsWith('--') || token.startsWith('/*')) {
      // PostgreSQL's own text may hold `?` in a literal (a jsonb operator's neighbour); SQLite's is translated, so must not.
      if (!own && /\?|@[A-Za-z_]/.test(token)) throw refuse(`a placeholder-like ${token.slice(0, 20)} inside a literal or comment`);
      return token;
    }
    if (token[0] === '?') {
      // In PostgreSQL's own text `?` is an operator (jsonb), and its parameters are numbered already.
      if (own) return token;
      if (token.length > 1) throw refuse(`SQLite's numbered ${token} parameter`);
      questions += 1;
      return `$${questions}`;
    }
    if (token[0] === '@') {
      const name = token.slice(1);
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      return `$${index + 1}`;
    }
    // `:x` or `$x`: SQLite's other parameter forms, or PostgreSQL's casts and numbered parameters in its own text.
    if (!own) throw refuse(`SQLite's ${token}… parameter form`);
    return token;
  });
  if (questions > 0 && names.length > 0) throw refuse('both ? and @name parameters');
  if (own && names.length > 0 && /\$\d/.test(source)) throw refuse('both $n and @name parameters');
  return { text, names: names.length > 0 ? names : null };
}

let count = 0;
const statements = new WeakMap<Query, PostgresStatement>();

/** The query's PostgreSQL statement, translated at its first use and kept by identity. */
export function postgresStatement(q: Query): PostgresStatement {
  let statement = statements.get(q);
  if (!statement) {
    const { text, names } = translate(q);
    statement = { name: q.adHoc ? undefined : `tokenbench_${++count}`, text, names, pluck: q.pluck === true };
    statements.set(q, statement);
  }
  return statement;
}

/** The values of `params` in the statement's `$n` order; a named parameter missing from them is refused. */
export function statementValues(statement: PostgresStatement, params: Params | undefined): unknown[] {
  if (params === undefined) return [];
  if (statement.names === null) {
    if (!Array.isArray(params)) throw new StatementTranslationError(`Statement ${statement.name ?? statement.text} takes its parameters as an array`);
    return params as unknown[];
  }
  const named = params as Record<string, unknown>;
  return statement.names.map((name) => {
    if (!(name in named)) throw new StatementTranslationError(`Missing named parameter '${name}'`);
    return named[name];
  });
}

/** A query as `pg` runs it outside a unit: a named prepared statement (unnamed when ad hoc), its parameters in order. */
export function queryConfig(q: Query, values: unknown[] = []): { name: string | undefined; text: string; values: unknown[] } {
  const { name, text } = postgresStatement(q);
  return { name, text, values };
}

/**
 * An INSERT of many rows in one statement and one round trip: each column's values travel as one array parameter
 * (`columnArrays`), unnested together in the rows' order, so identity columns number the rows in that order.
 */
export function batchInsert(table: string, columns: readonly (readonly [name: string, type: string])[]): string {
  const names = columns.map(([name]) => name).join(', ');
  const arrays = columns.map(([, type]) => `CAST(? AS ${type}[])`).join(', ');
  return `INSERT INTO ${table} (${names}) SELECT ${names} FROM unnest(${arrays}) WITH ORDINALITY AS r(${names}, at) ORDER BY at`;
}

/** Rows as batchInsert's parameters: one array per column. */
export function columnArrays(rows: readonly (readonly unknown[])[], width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}
