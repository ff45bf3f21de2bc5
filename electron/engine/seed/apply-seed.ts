import { isDeepStrictEqual } from 'node:util';
import type { ApplicationStore } from '../access/application-store';
import { systemCaller } from '../access/system-caller';
import { normalizeContainer } from '../vault/containers';
import type { TokenService } from '../vault/token-service';
import type { SeedFile, SeedReport } from './seed-file';

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
    const existing = tokens.store.get(request.id);
    if (existing) {
      // Containers and mask count when the seed gives them: a token left where it was would be "merged silently" (§8).
      const same =
        existing.type === request.type &&
        isDeepStrictEqual(existing.data, request.data) &&
        isDeepStrictEqual(existing.metadata, request.metadata ?? {}) &&
        (request.containers === undefined || isDeepStrictEqual(existing.containers, request.containers.map(normalizeContainer))) &&
        (request.mask === undefined || isDeepStrictEqual(existing.mask, request.mask));
      (same ? report.unchanged : report.conflicts).push(same ? label : `${label}: exists with other type, data, metadata, containers or mask`);
    } else if (tokens.store.idTaken(request.id)) {
      report.conflicts.push(`${label}: the id belongs to an expired token`);
    } else {
      tokens.create(request, { caller });
      report.created.push(label);
    }
  }
  return report;
}
