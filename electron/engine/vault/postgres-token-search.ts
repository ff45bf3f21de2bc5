import { type AsyncUnitRunner, query, tx } from '../storage/unit';
import type { TokenRow } from './token-store';

/**
 * The token search on PostgreSQL: what the vault's PostgreSQL store answers `TokenStore.search` and `countMatching`
 * with, given the SQL that `TokenQueries` built for `'postgres'` (search-dialect.ts). Each is a read unit run unnamed,
 * since a search's text varies with its filter. The rows are `SqliteTokenStore.search`'s, for the same `hydrate`.
 */
export class PostgresTokenSearch {
  constructor(private readonly units: AsyncUnitRunner) {}

  /** The tokens `where` matches, ordered and limited by `tail`; PostgreSQL's planner picks the creation-order index. */
  search(where: string, params: object, tail: string): Promise<TokenRow[]> {
    const text = `SELECT * FROM tokens WHERE ${where} ${tail}`;
    return this.units.read(() => tx.all(query<TokenRow>('token search', text, { postgres: text, adHoc: true }), params));
  }

  /** The count a search's `countSql` answers. */
  async countMatching(countSql: string, params: object): Promise<number> {
    const counted = query<{ n: number }>('token search count', countSql, { postgres: countSql, adHoc: true });
    return (await this.units.read(() => tx.get(counted, params)))!.n;
  }
}
