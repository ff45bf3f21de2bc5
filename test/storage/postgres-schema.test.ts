// The PostgreSQL schema against SQLite's, both introspected: every table, column (type class, nullability, default),
// primary key, unique constraint, index (columns, uniqueness, predicate), foreign key and CHECK that SQLite's migrations
// leave has its twin after migrating a fresh PostgreSQL database. A SQLite migration without its PostgreSQL entry fails.
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS } from '../../electron/engine/storage/migrations';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { POSTGRES_MIGRATIONS } from '../../electron/engine/storage/postgres/schema';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

interface Column {
  /** PostgreSQL's type, or the one a SQLite declared type maps to. */
  type: string;
  notNull: boolean;
  default: string | null;
  /** A SQLite rowid alias (INTEGER PRIMARY KEY); an identity column in PostgreSQL. */
  generated: boolean;
}
interface Index {
  unique: boolean;
  columns: string[];
  where: string | null;
}
interface ForeignKey {
  columns: string[];
  references: string;
  to: string[];
  onDelete: string;
}
interface Table {
  columns: Record<string, Column>;
  primaryKey: string[];
  /** Unique constraints by their columns (their names differ: SQLite's are generated). */
  unique: string[];
  /** Indexes made with CREATE INDEX, by name. */
  indexes: Record<string, Index>;
  foreignKeys: ForeignKey[];
  checks: number;
}

/**
 * Indexes PostgreSQL keeps narrower on purpose (see schema.ts): its key columns lead SQLite's, and the rest are either
 * included or left to the row.
 */
const NARROWER: Record<string, string> = { tokens_created: 'a B-tree entry must fit in about 2.7 KB; metadata need not' };

/** A predicate or default as both databases would agree on it: no casts, parentheses, case or spacing differences. */
const normal = (sql: string | null) =>
  sql === null
    ? null
    : sql
        .replace(/::[a-z ]+/g, '')
        .replace(/!=/g, '<>')
        .replace(/[()]/g, '')
        .replace(/\s+/g, ' ')
        .trim()
        .toLowerCase();

function sqliteSchema(): Record<string, Table> {
  const db = new Database(':memory:');
  applyMigrations(db);
  const all = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[];
  const tables = all<{ name: string; sql: string }>(
    `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'`,
  );
  const schema: Record<string, Table> = {};
  for (const { name, sql } of tables) {
    const info = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`PRAGMA table_info(${name})`);
    const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    const rowid = primaryKey.length === 1 && info.find((c) => c.name === primaryKey[0])!.type === 'INTEGER' && !/WITHOUT ROWID/i.test(sql);
    const columns = Object.fromEntries(
      info.map((c) => [
        c.name,
        {
          // SQLite's INTEGER is 64-bit: only BIGINT keeps every value it takes.
          type: ({ INTEGER: 'bigint', TEXT: 'text', BLOB: 'bytea' } as Record<string, string>)[c.type] ?? c.type,
          // A primary key column takes no null in either database (SQLite's pragma says so only for rowid aliases).
          notNull: c.notnull === 1 || c.pk > 0,
          default: normal(c.dflt_value),
          generated: rowid && c.pk > 0,
        },
      ]),
    );
    const indexColumns = (index: string) =>
      all<{ seqno: number; name: string }>(`PRAGMA index_info(${index})`)
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => c.name);
    const list = all<{ name: string; unique: number; origin: string }>(`PRAGMA index_list(${name})`);
    const indexes = Object.fromEntries(
      list
        .filter((i) => i.origin === 'c')
        .map((i) => {
          const indexSql = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck().get(i.name) as string;
          const where = /\bWHERE\b([\s\S]*)$/i.exec(indexSql)?.[1] ?? null;
          return [i.name, { unique: i.unique === 1, columns: indexColumns(i.name), where: normal(where) }];
        }),
    );
    const unique = list.filter((i) => i.origin === 'u').map((i) => indexColumns(i.name).join(', '));
    const fks = all<{ id: number; seq: number; table: string; from: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list(${name})`);
    const foreignKeys = [...new Set(fks.map((f) => f.id))].map((id) => {
      const parts = fks.filter((f) => f.id === id).sort((a, b) => a.seq - b.seq);
      return { columns: parts.map((f) => f.from), references: parts[0].table, to: parts.map((f) => f.to), onDelete: parts[0].on_delete.toLowerCase() };
    });
    schema[name] = { columns, primaryKey, unique, indexes, foreignKeys, checks: sql.match(/\bCHECK\s*\(/gi)?.length ?? 0 };
  }
  db.close();
  return schema;
}

async function postgresSchema(pool: pg.Pool): Promise<{ schema: Record<string, Table>; textCollations: string[] }> {
  const rows = async <T extends pg.QueryResultRow>(sql: string) => (await pool.query<T>(sql)).rows;
  const columns = await rows<{
    table_name: string;
    column_name: string;
    data_type: string;
    is_nullable: string;
    column_default: string | null;
    is_identity: string;
    collation_name: string | null;
  }>(`SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity, collation_name
        FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'
       ORDER BY table_name, ordinal_position`);
  const indexes = await rows<{ table: string; name: string; unique: boolean; primary: boolean; constraint: string | null; columns: string[]; where: string | null }>(
    `SELECT t.relname AS table, i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary,
            (SELECT contype::text FROM pg_constraint WHERE conindid = x.indexrelid AND contype IN ('p', 'u')) AS constraint,
            ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k) AS columns,
            pg_get_expr(x.indpred, x.indrelid) AS where
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> 'schema_migrations'`,
  );
  const constraints = await rows<{ table: string; type: string; columns: string[]; references: string | null; to: string[] | null; on_delete: string }>(
    `SELECT c.conrelid::regclass::text AS table, c.contype::text AS type,
            ARRAY(SELECT attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY o) AS columns,
            c.confrelid::regclass::text AS references,
            ARRAY(SELECT attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY o) AS to,
            c.confdeltype::text AS on_delete
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
      WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> 'schema_migrations' AND c.contype IN ('f', 'c')`,
  );
  const schema: Record<string, Table> = {};
  for (const c of columns) {
    schema[c.table_name] ??= { columns: {}, primaryKey: [], unique: [], indexes: {}, foreignKeys: [], checks: 0 };
    schema[c.table_name].columns[c.column_name] = {
      type: c.data_type,
      notNull: c.is_nullable === 'NO',
      default: normal(c.column_default),
      generated: c.is_identity === 'YES',
    };
  }
  for (const i of indexes) {
    const table = schema[i.table];
    if (i.constraint === 'p') table.primaryKey = i.columns;
    else if (i.constraint === 'u') table.unique.push(i.columns.join(', '));
    else table.indexes[i.name] = { unique: i.unique, columns: i.columns, where: normal(i.where) };
  }
  const onDelete: Record<string, string> = { a: 'no action', c: 'cascade', r: 'restrict', n: 'set null', d: 'set default' };
  for (const c of constraints) {
    if (c.type === 'c') schema[c.table].checks++;
    else schema[c.table].foreignKeys.push({ columns: c.columns, references: c.references!, to: c.to!, onDelete: onDelete[c.on_delete] });
  }
  const textCollations = columns.filter((c) => c.data_type === 'text').map((c) => `${c.table_name}.${c.column_name}: ${c.collation_name}`);
  return { schema, textCollations };
}

describePostgres('the PostgreSQL schema', () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = openPostgresPool(await freshDatabase('schema'));
    await migratePostgres(pool);
  });
  afterAll(() => pool?.end());

  it("is at SQLite's version", async () => {
    const { rows } = await pool.query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations');
    expect(rows[0].version).toBe(MIGRATIONS.at(-1)!.version);
    expect(POSTGRES_MIGRATIONS.at(-1)!.version).toBe(MIGRATIONS.at(-1)!.version);
  });

  it("has SQLite's tables, columns, keys, indexes, foreign keys and checks, and nothing else", async () => {
    const sqlite = sqliteSchema();
    const { schema: postgres, textCollations } = await postgresSchema(pool);
    for (const [name, index] of Object.entries(NARROWER)) {
      const [table] = Object.entries(sqlite).find(([, t]) => name in t.indexes)!;
      const narrower = postgres[table]?.indexes[name];
      expect(index).toBeTruthy();
      expect(sqlite[table].indexes[name].columns.slice(0, narrower?.columns.length)).toEqual(narrower?.columns);
      sqlite[table].indexes[name].columns = narrower?.columns ?? [];
    }
    const sorted = (schema: Record<string, Table>) =>
      Object.fromEntries(
        Object.entries(schema).map(([name, t]) => [
          name,
          { ...t, unique: [...t.unique].sort(), foreignKeys: [...t.foreignKeys].sort((a, b) => a.columns.join().localeCompare(b.columns.join())) },
        ]),
      );
    expect(sorted(postgres)).toEqual(sorted(sqlite));
    // Text compares byte by byte as in SQLite, whatever the database's own collation.
    expect(textCollations.filter((c) => !c.endsWith(': C'))).toEqual([]);
  });
});
