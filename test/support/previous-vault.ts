import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { loadOrCreateMasterKey, Sealer } from '../../electron/engine/storage/crypto';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { applyMigrations, MIGRATIONS } from '../../electron/engine/storage/migrations';
import { defaultContainer, defaultFingerprintExpression, defaultMask, defaultSearchIndexes, type TokenType } from '../../electron/engine/vault/token-types';

/** The migration that made cards and metadata values searchable; a vault from before it has neither indexed. */
export const CARD_TERMS_MIGRATION = 'card and metadata search terms';

export interface OldToken {
  type: TokenType;
  data: unknown;
  metadata?: Record<string, string>;
}

/**
 * Writes a data folder as the engine left it before card search: the schema without that migration, and token rows as
 * the vault wrote them then (data sealed under the folder's master key, no card or metadata search terms). Types with
 * default search indexes are refused: their terms would need the expression engine. Returns the tokens' ids in order.
 */
export function writePreviousVault(dir: string, tokens: readonly OldToken[]): string[] {
  const sealer = new Sealer(loadOrCreateMasterKey(dir));
  const db = new Database(join(dir, DATABASE_FILE));
  try {
    db.pragma('journal_mode = WAL');
    applyMigrations(db, MIGRATIONS.filter((migration) => migration.name !== CARD_TERMS_MIGRATION));
    const insert = db.prepare(`INSERT INTO tokens (id, tenant_id, type, containers, metadata, mask, fingerprint, fingerprint_expression,
        search_indexes, sealed, expires_at, created_by, created_at, modified_by, modified_at)
      VALUES (@id, 'tenant', @type, @containers, @metadata, @mask, @fingerprint, @fingerprint_expression, '[]', @sealed, NULL, NULL,
        @created_at, NULL, NULL)`);
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const ids = tokens.map(() => randomUUID());
    db.transaction(() =>
      tokens.forEach(({ type, data, metadata = {} }, i) => {
        if (defaultSearchIndexes(type).length > 0) throw new Error(`writePreviousVault takes no ${type} tokens: they have search indexes`);
        const mask = defaultMask(type);
        const number = type === 'card' ? (data as { number: string }).number : type === 'card_number' ? (data as string) : null;
        insert.run({
          id: ids[i],
          type,
          containers: JSON.stringify([defaultContainer(type)]),
          metadata: JSON.stringify(metadata),
          mask: mask === null ? null : JSON.stringify(mask),
          fingerprint: number === null ? null : sealer.fingerprint(`${type}\u0000${number}`),
          fingerprint_expression: defaultFingerprintExpression(type),
          sealed: sealer.sealJson({ data }, ids[i]),
          created_at: new Date(start + i).toISOString(),
        });
      }),
    )();
    return ids;
  } finally {
    db.close();
  }
}
