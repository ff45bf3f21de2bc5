import { keyLast4, type ApplicationStore } from '../access/application-store';
import type { AnyUnitRunner } from '../storage/unit';
import type { TokenService } from '../vault/token-service';
import type { StoredToken } from '../vault/token-store';

/** A seed file as `serve --seed` reads it (docs/api.md, Seed file), written from the vault. */
export interface ExportedSeed {
  applications: { name: string; type: string; permissions: string[]; rules: unknown[]; key: string }[];
  tokens?: Record<string, unknown>[];
}

/** An export key the file carries: by id and last four, and whether this export made it. */
export interface ExportKey {
  application_id: string;
  key_id: string;
  key_last4: string;
  made: boolean;
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
 * Keys are kept as keyed hashes, so a client's key cannot be written out: the file carries each application's export
 * key, kept sealed like the workbench's and made on the first export, so every file exported carries the same keys,
 * which work on this vault and on any vault seeded from it.
 */
export async function exportSeed(applications: ApplicationStore, tokens: TokenService<AnyUnitRunner>, includeTokens: boolean): Promise<{ seed: ExportedSeed; keys: ExportKey[] }> {
  const keys: ExportKey[] = [];
  const seed: ExportedSeed = { applications: [] };
  for (const application of applications.page(1, Number.MAX_SAFE_INTEGER).items) {
    const kept = await applications.keptKey(application.id, 'export');
    keys.push({ application_id: application.id, key_id: kept.id, key_last4: keyLast4(kept.key), made: kept.made });
    seed.applications.push({ name: application.name, type: application.type, permissions: application.permissions, rules: application.rules, key: kept.key });
  }
  if (includeTokens) {
    seed.tokens = (await tokens.store.liveByCreation()).map(asCreateRequest);
  }
  return { seed, keys };
}
