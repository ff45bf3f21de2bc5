import type { TokenSuggestion } from '../../../shared/workbench/composer-contract';
import { nowIso } from '../clock';
import { toText } from '../expressions/rendered-value';
import { type AnyUnitRunner, query, tx } from '../storage/unit';
import { LIVE, type TokenRow, type TokenStore } from './token-store';
import type { TokenService } from './token-service';

/**
 * Masked data is searched among this many of the newest tokens: it exists only as sealed data and its mask, so each
 * token's is computed once (then cached until a write) instead of unsealing a whole vault per keystroke.
 */
export const MASKED_SEARCH_WINDOW = 2000;

/** The largest code point: an id range `[text, text + this)` holds every id that starts with `text`. */
const LAST_CHARACTER = '\u{10FFFF}';

const found = {
  newest: query<TokenRow>('newest tokens', `SELECT * FROM tokens WHERE ${LIVE} ORDER BY created_at DESC, id DESC LIMIT @limit`),
  idStart: query<TokenRow>('tokens by id start', `SELECT * FROM tokens WHERE id >= @text AND id < @end AND ${LIVE} ORDER BY id LIMIT @limit`),
  holding: query<TokenRow>(
    'tokens holding text',
    `SELECT * FROM tokens WHERE ${LIVE} AND (instr(lower(id), @text) OR instr(lower(type), @text)
    OR instr(lower(containers), @text) OR instr(lower(metadata), @text)) ORDER BY created_at DESC, id DESC LIMIT @limit`,
  ),
};

/**
 * The tokens the editor offers while the user writes an expression, a page at a time: found by the start of their id
 * (through the primary key), by any text in their id, type, containers or metadata (a scan that stops at the limit),
 * or in their masked data among the newest tokens. Every token is shown masked, whoever will use it.
 */
export class TokenSuggestions {
  constructor(
    private readonly store: TokenStore<AnyUnitRunner>,
    private readonly tokens: TokenService<AnyUnitRunner>,
  ) {}

  private rows(q: (typeof found)[keyof typeof found], params: object): Promise<TokenRow[]> | TokenRow[] {
    return this.store.units.read(() => tx.all(q, params));
  }

  async suggest(text: string, limit: number): Promise<TokenSuggestion[]> {
    const now = nowIso();
    const wanted = text.trim();
    if (wanted === '') return (await this.rows(found.newest, { now, limit })).map((row) => this.suggestion(row));
    const offered = new Map<string, TokenRow>();
    const add = (rows: TokenRow[]) => rows.forEach((row) => offered.size < limit && !offered.has(row.id) && offered.set(row.id, row));
    add(await this.rows(found.idStart, { now, text: wanted, end: wanted + LAST_CHARACTER, limit }));
    const lower = wanted.toLowerCase();
    if (offered.size < limit) add(await this.rows(found.holding, { now, text: lower, limit }));
    if (offered.size < limit) {
      const recent = await this.rows(found.newest, { now, limit: MASKED_SEARCH_WINDOW });
      add(recent.filter((row) => toText(this.tokens.storedMaskedDataOfRow(row)).toLowerCase().includes(lower)));
    }
    return [...offered.values()].map((row) => this.suggestion(row));
  }

  private suggestion(row: TokenRow): TokenSuggestion {
    return {
      id: row.id,
      type: row.type,
      masked: this.tokens.storedMaskedDataOfRow(row) ?? null,
      containers: JSON.parse(row.containers) as string[],
      metadata: JSON.parse(row.metadata) as Record<string, string>,
      expires_at: row.expires_at,
    };
  }
}
