import { setImmediate as nextTurn } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import type { ApplicationStore, Created } from '../access/application-store';
import { systemCaller } from '../access/system-caller';
import { ExpressionOverBudget } from '../expressions';
import { ApiProblem } from '../server/problem';
import { type Answer, type AnyUnitRunner, afterRun, type Unit } from '../storage/unit';
import { TOKENS_PER_BUDGET, type CreateWrite, type TokenGroup, type TokenService } from '../vault/token-service';
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

type SeedApplication = SeedFile['applications'][number];
type SeedToken = SeedFile['tokens'][number];
/** The live tokens of some ids, as the vault's store answers them: at once over SQLite, a Promise over PostgreSQL. */
type Found = (StoredToken | undefined)[];

/** What applying a seed would do: its report, and the writes that make it so (none for what exists already). */
export interface SeedPlan {
  report: SeedReport;
  /**
   * Makes the entries the report lists as created, in one unit, and answers what it did. Each is judged
   * again as the vault stands then: one that another client made since the plan is unchanged or a conflict, unwritten.
   * At once over SQLite; a Promise over PostgreSQL.
   */
  apply(): SeedReport | Promise<SeedReport>;
}

/** Where one entry of a seed stands against the vault: the report's list and line for it. */
interface Verdict {
  list: keyof SeedReport;
  line: string;
}

/** An application is matched by its key (by name when the key is unknown); one that exists with other settings is a conflict. */
function judgeApplication(app: SeedApplication, applications: ApplicationStore): Verdict {
  const label = `application "${app.name}"`;
  const owner = applications.findByKey(app.key)?.application;
  if (owner) {
    const same =
      owner.name === app.name &&
      owner.type === app.type &&
      isDeepStrictEqual(owner.permissions, app.permissions) &&
      isDeepStrictEqual(owner.rules, app.rules);
    return same ? { list: 'unchanged', line: label } : { list: 'conflicts', line: `${label}: its key belongs to application "${owner.name}" with other settings` };
  }
  if (applications.findByName(app.name).length > 0) return { list: 'conflicts', line: `${label}: an application of that name exists with another key` };
  return { list: 'created', line: label };
}

/** A token is matched by id (`existing`, the live token of that id); one that exists with other content is a conflict. */
function judgeToken(wanted: StoredToken, existing: StoredToken | undefined): Verdict {
  const label = `token ${wanted.id}`;
  if (!existing) return { list: 'created', line: label };
  const differ = TOKEN_FIELDS.filter((field) => !isDeepStrictEqual(existing[field], wanted[field]));
  return differ.length === 0 ? { list: 'unchanged', line: label } : { list: 'conflicts', line: `${label}: exists with other ${differ.join(', ')}` };
}

/** Runs a step of preparing a seeded token; a problem names the token, for the seed file cannot be fixed otherwise. */
function forToken<T>(request: SeedToken, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    const shared =
      error instanceof ExpressionOverBudget
        ? `; each ${TOKENS_PER_BUDGET} tokens of a seed share one budget, as the tokens of one POST /tokenize request do`
        : '';
    throw new ApiProblem(400, `token ${request.id}: ${error.detail ?? error.message}${shared}`);
  }
}

/** The entries a plan found new, ready to write: the applications, and the tokens prepared with their search terms. */
interface NewEntries {
  applications: SeedApplication[];
  tokens: CreateWrite[];
}

/** The unit writing a seed's new entries: the applications, and the tokens (a seed raises no events). */
function* writingNew(applications: ApplicationStore, tokens: TokenService<AnyUnitRunner>, newApplications: readonly SeedApplication[], newTokens: CreateWrite[]): Unit<Created[]> {
  const created: Created[] = [];
  for (const { key, create_key: _ignored, ...input } of newApplications) created.push(yield* applications.creating(input, null, { create: true, secret: key }, null));
  yield* tokens.creatingAll(newTokens, null);
  return created;
}

/**
 * Writes what a plan found new, in one unit (so a write that fails, a token id an open transaction holds, leaves
 * nothing half applied), judging each entry again first, just before the unit starts: the vault may have changed since
 * the plan. Answers the plan's report as it turned out.
 */
function writeNew(planned: SeedReport, entries: NewEntries, applications: ApplicationStore, tokens: TokenService<AnyUnitRunner>): SeedReport | Promise<SeedReport> {
  // One query for them all, each id once as getMany takes them: they are expected free, and the transaction holds
  // the engine.
  const ids = [...new Set(entries.tokens.map((write) => write.token.id))];
  const written = afterRun(tokens.store.getMany(ids), (found) => {
    const done: SeedReport = { created: [], unchanged: [...planned.unchanged], conflicts: [...planned.conflicts] };
    const stillNew = (verdict: Verdict) => {
      done[verdict.list].push(verdict.line);
      return verdict.list === 'created';
    };
    // Every entry is judged before any is written: the seed's own entries (two of one name) do not conflict.
    const newApplications = entries.applications.filter((app) => stillNew(judgeApplication(app, applications)));
    const existing = new Map(ids.map((id, i) => [id, found[i]]));
    const newTokens = entries.tokens.filter((write) => stillNew(judgeToken(write.token, existing.get(write.token.id))));
    const made = tokens.store.runWrites(newTokens, () => writingNew(applications, tokens, newApplications, newTokens));
    return afterRun(made, (created) => {
      if (created.length > 0) applications.created(created);
      return done;
    });
  });
  // A Promise's answer is the report itself, not a Promise of it.
  return written as SeedReport | Promise<SeedReport>;
}

/**
 * Reads a seed against the vault without changing it, a slice of its tokens at a time, each slice's templates rendered
 * within one group's budget (TokenService.inTokenGroup) and only here: the plan holds the writes ready. Before each
 * slice it yields the read of the live tokens of the slice's ids and goes on with what that read found (its driver
 * answering other clients meanwhile, or not). An invalid token, or one over its group's budget, throws naming it.
 */
function* planning(seed: SeedFile, applications: ApplicationStore, tokens: TokenService<AnyUnitRunner>): Generator<Found | Promise<Found>, SeedPlan & { entries: NewEntries }, Found> {
  const report: SeedReport = { created: [], unchanged: [], conflicts: [] };
  const entries: NewEntries = { applications: [], tokens: [] };
  for (const app of seed.applications) {
    const verdict = judgeApplication(app, applications);
    report[verdict.list].push(verdict.line);
    if (verdict.list === 'created') entries.applications.push(app);
  }
  const caller = systemCaller(applications.tenantId);
  const planSlice = (group: TokenGroup, slice: readonly SeedToken[], existing: ReadonlyMap<string, StoredToken | undefined>) => {
    for (const request of slice) {
      const { token } = forToken(request, () => group.prepare(request, caller));
      const verdict = judgeToken(token, existing.get(token.id));
      report[verdict.list].push(verdict.line);
      if (verdict.list === 'created') entries.tokens.push(forToken(request, () => group.write(token)));
    }
  };
  for (let start = 0; start < seed.tokens.length; start += TOKENS_PER_BUDGET) {
    const slice = seed.tokens.slice(start, start + TOKENS_PER_BUDGET);
    const ids = [...new Set(slice.map((request) => request.id))];
    const found = yield tokens.store.getMany(ids);
    const existing = new Map(ids.map((id, i) => [id, found[i]]));
    tokens.inTokenGroup(`A slice of a seed holds at most ${TOKENS_PER_BUDGET} tokens`, (group) => planSlice(group, slice, existing));
  }
  return { report, entries, apply: () => writeNew(report, entries, applications, tokens) };
}

/** Plans a seed a slice at a time, answering other clients between slices: the workbench's import (see planning). */
export async function planSeedBetweenRequests(seed: SeedFile, applications: ApplicationStore, tokens: TokenService<AnyUnitRunner>): Promise<SeedPlan> {
  const steps = planning(seed, applications, tokens);
  let step = steps.next();
  while (!step.done) {
    const found = await step.value;
    await nextTurn();
    step = steps.next(found);
  }
  return step.value;
}

/** Steps a plan through its reads: within the turn while they answer at once (SQLite's), awaiting them otherwise. */
function planAtOnce<Plan>(steps: Generator<Found | Promise<Found>, Plan, Found>, found?: Found): Plan | Promise<Plan> {
  let step = found === undefined ? steps.next() : steps.next(found);
  while (!step.done) {
    const read = step.value;
    if (read instanceof Promise) return read.then((answer) => planAtOnce(steps, answer));
    step = steps.next(read);
  }
  return step.value;
}

/**
 * Applies a seed at once, holding the engine meanwhile: `serve --seed`, before the port opens, where each slice's
 * budget bounds the work (see planning). Over SQLite it answers within the turn (a deleted tenant's seed is applied
 * inside the wipe's unit); over PostgreSQL, once its reads and its unit are done. Applying it again changes nothing.
 */
export function applySeed<R extends AnyUnitRunner>(seed: SeedFile, applications: ApplicationStore, tokens: TokenService<R>): Answer<R, SeedReport> {
  return afterRun(planAtOnce(planning(seed, applications, tokens)), (plan) => plan.apply()) as Answer<R, SeedReport>;
}

/**
 * A seed applied again inside a unit that has just emptied the vault (a deleted tenant's wipe): every entry is new, so
 * it is planned against nothing, without reading, and written in that unit, over either database. Answers the token
 * writes, for its caller to settle once the unit has committed.
 */
export function* seedingEmptied(seed: SeedFile, applications: ApplicationStore, tokens: TokenService<AnyUnitRunner>): Unit<CreateWrite[]> {
  const steps = planning(seed, applications, tokens);
  let step = steps.next();
  while (!step.done) step = steps.next([]);
  const { applications: newApplications, tokens: newTokens } = step.value.entries;
  applications.created(yield* writingNew(applications, tokens, newApplications, newTokens));
  return newTokens;
}
