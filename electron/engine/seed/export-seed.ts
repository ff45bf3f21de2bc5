import type { ApplicationStore } from '../access/application-store';
import type { TokenService } from '../vault/token-service';
import { LIVE, type StoredToken, type TokenRow } from '../vault/token-store';
import { nowIso } from '../clock';

/** A seed file as `serve --seed` reads it (docs/api.md, Seed file), written from the vault. */
export interface ExportedSeed {
  applications: { name: string; type: string; permissions: string[]; rules: unknown[]; key: string }[];
  tokens?: Record<string, unknown>[];
}

/** A token as the create request that makes it again: a field left at nothing is left out, so its default applies. */
function asCreateRequest(token: StoredToken): Record<string, unknown> {
  return {
    id: token.id,
    type: token.type,
    data: token.data,
    containers: token.containers,
    metadata: token.metadata,
    mask: token.mask,
    ...(token.fingerprint_expression === null ? {} : { fingerprint_expression: token.fingerprint_expression }),
    search_indexes: token.search_indexes,
    expires_at: token.expires_at,
  };
}

/**
 * The vault's applications and rules as a seed file, and its live tokens with their plaintext data only when asked.
 * Keys are kept as keyed hashes, so none can be written out: each application gets a new key, made here in the same
 * SQLite transaction, so the file's keys work on this vault and on any vault seeded from it.
 */
export function exportSeed(applications: ApplicationStore, tokens: TokenService, includeTokens: boolean): ExportedSeed {
  const db = tokens.store.db;
  return db.transaction((): ExportedSeed => {
    const seed: ExportedSeed = {
      applications: applications.page(1, Number.MAX_SAFE_INTEGER).items.map((application) => ({
        name: application.name,
        type: application.type,
        permissions: application.permissions,
        rules: application.rules,
        key: applications.createKey(application.id, null).key,
      })),
    };
    if (includeTokens) {
      const rows = db.prepare(`SELECT * FROM tokens WHERE ${LIVE} ORDER BY created_at, id`).all({ now: nowIso() }) as TokenRow[];
      seed.tokens = rows.map((row) => asCreateRequest(tokens.store.hydrate(row)));
    }
    return seed;
  })();
}
