import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AccessPolicy, type AccessRule } from '../../electron/engine/access/permissions';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { openPostgresPool } from '../../electron/engine/storage/postgres/connection';
import { jsLowerParams, jsLowerSql } from '../../electron/engine/storage/postgres/js-lower';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { type SqliteUnits, unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { query, type SqlDialect, tx } from '../../electron/engine/storage/unit';
import type { DateField, SearchNode } from '../../electron/engine/vault/search-query';
import { termHash } from '../../electron/engine/vault/search-terms';
import { cursorPage, cursorRows, offsetPage, type SearchStatement, type TokenFilter, WhereBuilder } from '../../electron/engine/vault/token-queries';
import { applyTokenWrites, UnitTokenStore, type StoredToken, type TokenRow, type TokenWrite } from '../../electron/engine/vault/token-store';
import { describePostgres, freshDatabase } from '../support/postgres-suite';
import { SeededRandom } from '../support/seeded-random';
import { tempDir } from '../support/test-engine';

const SEED = Number(process.env.SEARCH_SEED ?? 43);
const TOKENS = 160;
const SEARCHES = 220;

/**
 * Words whose case folding differs between JavaScript and PostgreSQL's lower(): Turkish dotted and dotless i, German
 * sharp s and its capital, Greek sigma at a word's end, Cyrillic, combining marks, letters outside the BMP, emoji,
 * digraphs, ligatures, a NUL, a backslash and a lone surrogate (which PostgreSQL's JSON functions treat apart).
 */
const WORDS = [
  'a', 'A', 'Straße', 'STRASSE', 'STRAẞE', 'ß', 'İstanbul', 'istanbul', 'ISTANBUL', 'ırmak', 'IRMAK', 'İ', 'ı', 'I', 'i̇',
  'ΟΔΟΣ', 'οδος', 'οδοσ', 'ΟΔΟΣ.', 'Σ', 'ΑΣ΄Β', 'ὈΔΥΣΣΕΎΣ', 'Москва', 'МОСКВА', 'ЁЖ', 'e\u0301', 'É', 'é', 'Ǆ', 'ǅ', 'ǆ',
  'ﬀ', 'ŉ', 'Ꭰ', 'ꭰ', '𐐀', '𐐨', '𞤀', '😀', 'x😀Y', 'a\u0000b', 'a\\b', '\\u0000', 'x\ud800y', 'K', 'k', 'Å', 'Ω', '42', '0042',
];
const ids = (n: number) => [`tok-${n}`, `Tok-${n}`, `ärger-${n}`, `STRASSE-${n}`, `ıd-${n}`, `😀-${n}`, `Σ-${n}`][n % 7];
const TYPES = ['card', 'ssn', 'Card', 'custom_ä', 'card_number'];
const CONTAINERS = [['/'], ['/a/'], ['/a/b/'], ['/c/'], ['/a/', '/c/'], ['/a/b/c/']];
const PREFIXES = ['/', '/a/', '/a/b/', '/c/', '/b/'];
const APPS = ['app-1', 'APP-1', 'app-ß', null];
const INSTANTS = [
  '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-01-15T12:30:00.000Z', '2026-02-01T00:00:00.000Z',
  '2026-02-28T23:59:59.999Z', '2026-03-01T00:00:00.000Z',
];
const EXPIRIES = [null, null, null, '2020-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z'];
const CARDS = ['4242424242424242', '4000056655665556', '5555555555554444', '378282246310005', '6011111111111117', '3056930009020004', '4242424242424'];
const DATE_FIELDS: DateField[] = ['created_at', 'modified_at', 'expires_at'];

const sealer = new Sealer(randomBytes(32));
const hash = (field: Parameters<typeof termHash>[1], value: string) => termHash(sealer, field, value);

let dir: string;
let db: Db;
let store: UnitTokenStore<SqliteUnits>;
let pool: pg.Pool;
let postgres: PostgresUnits;
let pgStore: UnitTokenStore<PostgresUnits>;

beforeAll(async () => {
  dir = tempDir();
  db = openDatabase({ dataDir: dir });
  store = new UnitTokenStore(unitsOf(db), sealer, new EventOutbox(unitsOf(db), 'tenant-1'));
  pool = openPostgresPool(await freshDatabase('search'));
  await migratePostgres(pool);
  postgres = new PostgresUnits(pool);
  pgStore = new UnitTokenStore(postgres, sealer, new EventOutbox(postgres, 'tenant-1'));
});
afterAll(async () => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
  await pool.end();
});

/** A word as typed: as given, upper- or lower-cased. */
const typed = (r: SeededRandom, word: string) => r.pick([word, word, word.toUpperCase(), word.toLowerCase()]);
const words = (r: SeededRandom, n: number) => Array.from({ length: n }, () => r.pick(WORDS)).join(r.pick(['', ' ', '-']));

function makeToken(r: SeededRandom, n: number): { token: StoredToken; indexed: string[] } {
  const type = r.pick(TYPES);
  const number = r.pick(CARDS);
  const data = type === 'card' ? { number, expiration_month: r.int(1, 12), expiration_year: r.int(2026, 2032) } : type === 'card_number' ? number : `value-${n}`;
  const metadata: Record<string, string> = {};
  for (let k = r.int(0, 3); k > 0; k--) metadata[words(r, r.int(1, 2))] = words(r, r.int(1, 3));
  const indexed = Array.from({ length: r.int(0, 2) }, () => words(r, r.int(1, 2)));
  const modified = r.chance(0.4) ? r.pick(INSTANTS) : null;
  return {
    indexed,
    token: {
      id: ids(n),
      tenant_id: 'tenant-1',
      type,
      data,
      containers: r.pick(CONTAINERS),
      metadata,
      mask: null,
      fingerprint: r.chance(0.8) ? r.pick(['fp-1', 'FP-1', 'fp-ß', `fp-${n}`]) : null,
      fingerprint_expression: null,
      search_indexes: indexed.map((_, i) => `expr-${i}`),
      expires_at: r.pick(EXPIRIES),
      created_by: r.pick(APPS),
      created_at: r.pick(INSTANTS),
      modified_by: modified ? r.pick(APPS) : null,
      modified_at: modified,
    },
  };
}

/** A search of every form the query language has, over the values the tokens hold, in any case. */
function makeNode(r: SeededRandom, tokens: { token: StoredToken; indexed: string[] }[], depth: number): SearchNode {
  const { token, indexed } = r.pick(tokens);
  const entries = Object.entries(token.metadata);
  const form = r.int(0, depth > 0 ? 14 : 11);
  switch (form) {
    case 0:
      return { kind: 'term', field: 'id', value: typed(r, token.id), match: 'exact' };
    case 1:
      return { kind: 'term', field: r.pick(['type', 'fingerprint', 'created_by', 'modified_by'] as const), value: typed(r, r.pick([token.type, token.fingerprint ?? 'fp-1', ...APPS.filter((a) => a !== null)])), match: 'exact' };
    case 2:
      return { kind: 'term', field: 'data', value: indexed.length > 0 && r.chance(0.8) ? typed(r, r.pick(indexed)) : words(r, 1), match: 'exact' };
    case 3:
      return { kind: 'term', field: 'container', value: r.pick(PREFIXES), match: 'prefix' };
    case 4: {
      const [key, value] = entries.length > 0 && r.chance(0.8) ? r.pick(entries) : [words(r, 1), words(r, 1)];
      return { kind: 'term', field: 'metadata', key: typed(r, key), value: typed(r, value), match: 'exact' };
    }
    case 5: {
      const number = r.pick(CARDS);
      const card = r.pick([
        ['card.last4', number.slice(-4)],
        ['card.bin', number.slice(0, 6)],
        ['card.number', number],
        ['card.brand', r.pick(['visa', 'mastercard', 'american-express', 'discover', 'diners-club'])],
        ['card.expiry', `${r.int(2026, 2032)}-${String(r.int(1, 12)).padStart(2, '0')}`],
      ] as const);
      return { kind: 'term', field: card[0], value: card[1], match: 'exact' };
    }
    case 6:
    case 7:
      return { kind: 'text', value: typed(r, r.pick([token.id, ...Object.values(token.metadata), ...indexed, r.pick(CARDS).slice(-4), 'visa', words(r, 1)])) };
    case 8:
    case 9:
    case 10:
    case 11: {
      const [a, b] = [r.pick(INSTANTS), r.pick(INSTANTS)].sort();
      return {
        kind: 'range',
        field: r.pick(DATE_FIELDS),
        ...(r.chance(0.8) && { from: a }),
        ...(r.chance(0.8) && { to: r.chance(0.2) ? '2999-01-01T00:00:00.000Z' : b }),
        fromInclusive: r.chance(0.5),
        toInclusive: r.chance(0.5),
      };
    }
    case 12:
      return { kind: 'not', child: makeNode(r, tokens, depth - 1) };
    default:
      return { kind: r.pick(['and', 'or'] as const), children: Array.from({ length: r.int(2, 3) }, () => makeNode(r, tokens, depth - 1)) };
  }
}

function makeFilter(r: SeededRandom, tokens: { token: StoredToken; indexed: string[] }[]): TokenFilter {
  const filter: TokenFilter = { metadataAnyCase: r.chance(0.5) };
  if (r.chance(0.85)) filter.search = makeNode(r, tokens, 3);
  if (r.chance(0.1)) filter.ids = Array.from({ length: r.int(1, 6) }, () => typed(r, r.pick(tokens).token.id)).concat(r.chance(0.3) ? ['nul\u0000id'] : []);
  if (r.chance(0.15)) {
    const entries = Object.entries(r.pick(tokens).token.metadata);
    if (entries.length > 0) filter.metadata = Object.fromEntries([r.pick(entries)].map(([k, v]) => [typed(r, k), typed(r, v)]));
  }
  if (r.chance(0.1)) filter.container = r.pick(PREFIXES);
  if (r.chance(0.1)) filter.type = typed(r, r.pick(TYPES));
  if (r.chance(0.05)) filter.fingerprint = r.pick(['fp-1', 'fp-ß', 'fp\u0000']);
  return filter;
}

const rule = (container: string, conditions?: AccessRule['conditions']): AccessRule => ({
  description: 'search',
  priority: 1,
  container,
  transform: 'mask',
  permissions: ['token:search'],
  ...(conditions && { conditions }),
});
const ROOT = new AccessPolicy({ id: 'app-root', type: 'private', permissions: ['token:search'], rules: [] });
const POLICIES = [
  ROOT,
  ROOT,
  new AccessPolicy({ id: 'app-a', type: 'private', permissions: [], rules: [rule('/a/'), rule('/c/')] }),
  new AccessPolicy({ id: 'app-session', type: 'private', permissions: [], rules: [rule('/', [{ attribute: 'id', operator: 'equals', value: 'tok-1' }])] }),
];

/** One dialect's way to run a search's statements. */
interface Runner {
  dialect: SqlDialect;
  search(statement: SearchStatement): Promise<TokenRow[]>;
  count(where: WhereBuilder): Promise<number>;
}
const runners = (): Runner[] => [
  {
    dialect: 'sqlite',
    search: async (s) => store.search(s.where, s.params, s.tail, s.indexedByCreation),
    count: async (where) => store.countMatching(where.countSql, where.params),
  },
  {
    dialect: 'postgres',
    search: (s) => pgStore.search(s.where, s.params, s.tail, s.indexedByCreation),
    count: (where) => pgStore.countMatching(where.countSql, where.params),
  },
];

/** Everything a search answers on one dialect: its count, and its ids through offset pages and both cursor orders. */
async function answers(runner: Runner, policy: AccessPolicy, filter: TokenFilter, size: number, inOrder: boolean) {
  const where = (probe = false) => {
    const built = new WhereBuilder(runner.dialect, hash, probe);
    built.permitted(policy, 'token:search');
    built.filter(filter);
    return built;
  };
  const idsOf = (rows: TokenRow[]) => rows.map((row) => row.id);
  const count = await runner.count(where());
  const offsetPages: string[][] = [];
  for (let page = 1; page === 1 || offsetPages[offsetPages.length - 1].length === size; page++) {
    offsetPages.push(idsOf(await runner.search(offsetPage(where(), page, size))));
  }
  const cursorPages: Record<'oldest' | 'newest', string[][]> = { oldest: [], newest: [] };
  for (const first of ['oldest', 'newest'] as const) {
    let start: string | undefined;
    do {
      const { rows, next } = cursorRows(await runner.search(cursorPage(where(inOrder), start, size, first, inOrder)), size);
      cursorPages[first].push(idsOf(rows));
      start = next ?? undefined;
    } while (start);
  }
  return { count, offsetPages, cursorPages };
}

describePostgres('token search on SQLite and PostgreSQL', () => {
  it('answers every search with the same tokens, in the same order, on every page, and the same counts', async () => {
    const r = new SeededRandom(SEED);
    const tokens = Array.from({ length: TOKENS }, (_, n) => makeToken(r, n));
    const writes: TokenWrite[] = tokens.map(({ token, indexed }) => ({ op: 'create', token, searchTerms: indexed.map((v) => hash('search', v)) }));
    unitsOf(db).run(() => applyTokenWrites(store.writing, writes));
    await postgres.run(() => applyTokenWrites(store.writing, writes));

    let matched = 0;
    for (let n = 0; n < SEARCHES; n++) {
      const filter = makeFilter(r, tokens);
      const [policy, size, inOrder] = [r.pick(POLICIES), r.int(1, 9), r.chance(0.5)];
      const [onSqlite, onPostgres] = await Promise.all(runners().map((runner) => answers(runner, policy, filter, size, inOrder)));
      const what = `search ${n} (seed ${SEED}): ${JSON.stringify({ filter, policy: policy.subject.id, size, inOrder })}`;
      expect(onPostgres, what).toEqual(onSqlite);
      // Every way through the pages reads the count's tokens once each.
      expect(onSqlite.offsetPages.flat(), what).toEqual(onSqlite.cursorPages.oldest.flat());
      expect(onSqlite.cursorPages.newest.flat().reverse(), what).toEqual(onSqlite.cursorPages.oldest.flat());
      expect(onSqlite.count, what).toBe(onSqlite.offsetPages.flat().length);
      if (onSqlite.count > 0) matched++;
    }
    // The searches find something often enough to compare orders, not only empty answers.
    expect(matched).toBeGreaterThan(SEARCHES / 4);
    // Nor does a connection keep a prepared statement per search it ran.
    const kept = query<number>('prepared searches', 'x', {
      postgres: "SELECT COUNT(*) FROM pg_prepared_statements WHERE statement LIKE 'SELECT * FROM tokens WHERE %' OR statement LIKE 'SELECT (SELECT COUNT(*)%'",
      pluck: true,
      adHoc: true,
    });
    expect(await postgres.read(() => tx.get(kept))).toBe(0);
  });

  it('lowers every code point, and capital sigma in every context, as JavaScript does', async () => {
    const texts: string[] = [];
    for (let cp = 1; cp <= 0x10ffff; cp++) {
      if (cp === 0xd800) cp = 0xe000;
      const c = String.fromCodePoint(cp);
      if (c.toLowerCase() !== c || /[\p{Cased}\p{Case_Ignorable}]/u.test(c)) texts.push(c, `AΣ${c}`, `${c}Σ`, `A${c}Σ`, `Σ${c}a`, `${c}ΣΣ${c}`);
      else if (cp % 97 === 0) texts.push(c, `AΣ${c}`, `${c}Σ`);
    }
    const lowered = query<string>('lower as JavaScript does', 'x', {
      postgres: `SELECT ${jsLowerSql('t.s')} FROM unnest(@texts::text[]) WITH ORDINALITY AS t(s, n) ORDER BY t.n`,
      pluck: true,
      adHoc: true,
    });
    const answered = await postgres.read(() => tx.all(lowered, { texts, ...jsLowerParams() }));
    const differing = texts.filter((text, i) => answered[i] !== text.toLowerCase());
    expect(differing.map((text) => [...text].map((c) => c.codePointAt(0)!.toString(16)).join(' '))).toEqual([]);
  });
});
