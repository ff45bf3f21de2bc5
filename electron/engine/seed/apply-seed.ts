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

/**
 * Applies a seed so that applying it again changes nothing: an application is matched by name, a token by id.
 * An entry that exists with other content is a conflict, reported and left alone.
 */
export function applySeed(seed: SeedFile, applications: ApplicationStore, tokens: TokenService): SeedReport {
  const report: SeedReport = { created: [], unchanged: [], conflicts: [] };
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
      applications.create(input, null, { create: true, secret: key });
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
      // eslint-disable-next-line preserve-caught-error -- printed, a cause would show the problem's field errors too
      if (error instanceof ApiProblem) throw new Error(`${label}: ${error.detail ?? error.message}`);
      throw error;
    }
    const existing = tokens.store.get(request.id);
    if (!existing) {
      tokens.create(request, { caller });
      report.created.push(label);
    } else if (TOKEN_FIELDS.every((field) => isDeepStrictEqual(existing[field], wanted[field]))) {
      report.unchanged.push(label);
    } else {
      const differ = TOKEN_FIELDS.filter((field) => !isDeepStrictEqual(existing[field], wanted[field]));
      report.conflicts.push(`${label}: exists with other ${differ.join(', ')}`);
    }
  }
  return report;
}
