import { isDeepStrictEqual } from 'node:util';
import type { ApplicationStore } from '../access/application-store';
import { systemCaller } from '../access/system-caller';
import { ApiProblem } from '../server/problem';
import type { TokenService } from '../vault/token-service';
import type { StoredToken } from '../vault/token-store';
import type { SeedFile, SeedReport } from './seed-file';

/**
 * What a seeded token is compared on: everything a create request sets, after defaults and normalising (a token the
 * seed would make differently is not "unchanged", whether the difference is a given field or a default).
 */
const TOKEN_FIELDS = [
  'type',
  'data',
  'metadata',
  'containers',
  'mask',
  'fingerprint_expression',
  'search_indexes',
  'expires_at',
] as const satisfies readonly (keyof StoredToken)[];

/** What applying a seed would do: its report, and the writes that make it so (none for what exists already). */
export interface SeedPlan {
  report: SeedReport;
  /** Makes the entries the report lists as created. */
  apply(): void;
}

/**
 * Reads a seed against the vault without changing it: an application is matched by its key (by name when the key is
 * unknown), a token by id. An entry that exists with other content is a conflict, reported and left alone. An invalid
 * token throws, naming it.
 */
export function planSeed(seed: SeedFile, applications: ApplicationStore, tokens: TokenService): SeedPlan {
  const report: SeedReport = { created: [], unchanged: [], conflicts: [] };
  const writes: (() => void)[] = [];
  for (const app of seed.applications) {
    const label = `application "${app.name}"`;
    const owner = applications.findByKey(app.key)?.application;
    const sameName = applications.findByName(app.name);
    if (owner) {
      const same =
        owner.name === app.name &&
        owner.type === app.type &&
        isDeepStrictEqual(owner.permissions, app.permissions) &&
        isDeepStrictEqual(owner.rules, app.rules);
      (same ? report.unchanged : report.conflicts).push(
        same ? label : `${label}: its key belongs to application "${owner.name}" with other settings`,
      );
    } else if (sameName.length > 0) {
      report.conflicts.push(`${label}: an application of that name exists with another key`);
    } else {
      const { key, create_key: _ignored, ...input } = app;
      writes.push(() => applications.create(input, null, { create: true, secret: key }));
      report.created.push(label);
    }
  }
  const caller = systemCaller(applications.tenantId);
  for (const request of seed.tokens) {
    const label = `token ${request.id}`;
    let wanted: StoredToken;
    try {
      wanted = tokens.prepareCreate(request, caller).token;
    } catch (error) {
      // The seed file cannot be fixed from a problem that does not say which of its tokens failed.
      if (error instanceof ApiProblem) throw new ApiProblem(400, `${label}: ${error.detail ?? error.message}`);
      throw error;
    }
    const existing = tokens.store.get(request.id);
    if (!existing) {
      writes.push(() => tokens.create(request, { caller }));
      report.created.push(label);
    } else if (TOKEN_FIELDS.every((field) => isDeepStrictEqual(existing[field], wanted[field]))) {
      report.unchanged.push(label);
    } else {
      const differ = TOKEN_FIELDS.filter((field) => !isDeepStrictEqual(existing[field], wanted[field]));
      report.conflicts.push(`${label}: exists with other ${differ.join(', ')}`);
    }
  }
  // One SQLite transaction: a write that fails (a token id another transaction holds) leaves nothing half applied.
  return { report, apply: tokens.store.db.transaction(() => writes.forEach((write) => write())) };
}

/** Applies a seed so that applying it again changes nothing (see planSeed). */
export function applySeed(seed: SeedFile, applications: ApplicationStore, tokens: TokenService): SeedReport {
  const plan = planSeed(seed, applications, tokens);
  plan.apply();
  return plan.report;
}
