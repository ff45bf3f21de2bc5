/**
 * `/reactors` (docs/api.md, Reactors): create, list, read, replace, merge-patch and delete for management applications
 * holding the reactor:* permission each needs; `react`, `react-async` and `results` for private applications holding
 * reactor:invoke; and the removed reactor formulas, which answer 410.
 */
import type { ApplicationStore } from '../access/application-store';
import { managed } from '../access/managed-route';
import type { EventCause } from '../events/event-outbox';
import { dropCallKeyApplications } from '../access/runtime-keys';
import { missingDependencies } from '../code-runtime';
import { answerFromCode } from '../proxies/code-transform';
import type { Forwarder } from '../proxy/forwarder';
import { causeOf } from '../server/event-cause';
import { requireMergePatchType } from '../server/merge-patch-type';
import { offsetPage } from '../server/offset-page';
import { ApiProblem, validationProblem } from '../server/problem';
import type { RequestContext, Route } from '../server/route-types';
import { mergePatch } from '../vault/merge-patch';
import { deliverCallback, parseCallbackUrl } from './reactor-callback';
import { reactorKeyUser, requireInvoker, type ReactorCalls } from './reactor-calls';
import { definitionOf, type ReactorDefinition, reactorView, runtimeOf, type StoredReactor } from './reactor-model';
import { parseReactorRequest, reactorPatch } from './reactor-requests';
import type { ReactAnswer, ReactorResults } from './reactor-results';
import type { ReactorSaveFailure, ReactorStore } from './reactor-store';

export interface ReactorRouteDeps {
  reactors: ReactorStore;
  results: ReactorResults;
  calls: ReactorCalls;
  applications: ApplicationStore;
  tenantId: string;
  headerPrefix: string;
  /** The proxy's forwarder: a legacy callback_url is delivered under the destination policy. */
  forwarder: Forwarder;
  /** A failed callback's first retry comes this long after it (the vendor's old 10 s); tests shorten it. */
  callbackFirstRetryMs: number;
  /** Called when a reactor is saved: the code runtime gets ready before its first call. */
  codeSaved(): void;
  /** The folder whose node_modules holds node22 code's `runtime.dependencies` (null: none named). */
  dependenciesDir: string | null;
  log(line: string): void;
}

const REMOVED_FORMULAS = 'Reactor formulas were removed by the vendor on 2024-02-14: give a reactor its own code (POST /reactors)';

/** A definition's application must be public or private, and node22 code takes none (vendor §3.2). */
export function checkApplication(definition: ReactorDefinition, applications: ApplicationStore): void {
  if (definition.application_id === null) return;
  const application = applications.get(definition.application_id);
  if (!application || application.type === 'management') throw validationProblem({ 'application.id': ['application must be an existing public or private application'] });
  if (runtimeOf(definition).image === 'node22') throw validationProblem({ 'application.id': ['node22 code takes its permissions from runtime.permissions, not an application'] });
}

/** Why node22 dependencies keep a definition from going live, or null. */
export function dependencyFailure(definition: ReactorDefinition, dir: string | null): ReactorSaveFailure {
  const { runtime } = definition;
  const missing = runtime?.image === 'node22' ? missingDependencies(runtime, dir ?? undefined) : null;
  return missing ? { error_code: 'dependency_unavailable', error_message: missing, error_details: { 'runtime.dependencies': [missing] } } : null;
}

/** A body of POST or PUT /reactors (or the workbench's), checked whole: the definition to save. */
export function acceptedReactor(body: unknown, { applications, codeSaved }: Pick<ReactorRouteDeps, 'applications' | 'codeSaved'>): ReactorDefinition {
  const definition = parseReactorRequest(body);
  checkApplication(definition, applications);
  codeSaved();
  return definition;
}

/** Deletes a reactor, and the applications that held its node22 code's keys: the route's and the workbench's one way. */
export async function deleteReactor({ reactors, applications }: Pick<ReactorRouteDeps, 'reactors' | 'applications'>, id: string, cause: EventCause): Promise<void> {
  const reactor = reactors.requireWritable(id);
  await reactors.delete(reactor.id, cause);
  await dropCallKeyApplications(applications, [reactorKeyUser(reactor)]);
}

export function reactorRoutes(deps: ReactorRouteDeps): Route[] {
  const { reactors, results, calls, applications, tenantId } = deps;
  const view = async (stored: StoredReactor) => {
    const reactor = await reactors.settled(stored.id, deps.dependenciesDir);
    return reactorView(reactor, tenantId, reactor.application_id === null ? undefined : applications.get(reactor.application_id));
  };
  const id = (ctx: RequestContext) => ctx.params.id as string;
  const traceHeader = `${deps.headerPrefix}-TRACE-ID`;
  const accepted = (body: unknown): ReactorDefinition => acceptedReactor(body, deps);
  const failure = (definition: ReactorDefinition) => dependencyFailure(definition, deps.dependenciesDir);

  /** react and react-async: the request checked and detokenized now, its record kept in History with the call. */
  async function prepared(ctx: RequestContext) {
    const body = await ctx.json();
    // Expressions, not values: the body as sent is safe to keep, as /detokenize's is.
    ctx.log.requestBody = body;
    const prepared = await calls.prepare(ctx.caller, id(ctx), body, causeOf(ctx));
    ctx.log.details = { reactor: prepared.record };
    ctx.log.secrets ??= prepared.secrets ?? undefined;
    return prepared;
  }

  const formulaRoutes: Route[] = (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).flatMap((method) =>
    ['/reactor-formulas', '/reactor-formulas/:id'].map((path) => ({
      method,
      path,
      handler: () => {
        throw new ApiProblem(410, REMOVED_FORMULAS);
      },
    })),
  );

  return [
    {
      method: 'POST',
      path: '/reactors',
      idempotent: true,
      handler: managed('reactor:create', async (ctx) => {
        const definition = accepted(await ctx.json());
        return { status: 201, body: await view(await reactors.create(definition, ctx.caller.application.id, failure(definition), causeOf(ctx))) };
      }),
    },
    {
      method: 'GET',
      path: '/reactors',
      handler: managed('reactor:read', async (ctx) => {
        const query = ctx.query();
        return { status: 200, body: offsetPage(await Promise.all(reactors.list(query.getAll('id'), query.get('name') ?? undefined).map(view)), query) };
      }),
    },
    {
      method: 'GET',
      path: '/reactors/:id',
      handler: managed('reactor:read', async (ctx) => ({ status: 200, body: await view(reactors.require(id(ctx))) })),
    },
    {
      method: 'PUT',
      path: '/reactors/:id',
      idempotent: true,
      handler: managed('reactor:update', async (ctx) => {
        reactors.requireWritable(id(ctx));
        const definition = accepted(await ctx.json());
        return { status: 200, body: await view(await reactors.replace(id(ctx), definition, ctx.caller.application.id, failure(definition), causeOf(ctx))) };
      }),
    },
    {
      method: 'PATCH',
      path: '/reactors/:id',
      idempotent: true,
      handler: managed('reactor:update', async (ctx) => {
        requireMergePatchType(ctx, '/reactors/{id}');
        const stored = reactors.requireWritable(id(ctx));
        // Onto the latest change asked for: a failed one is what the client is fixing.
        const definition = accepted(mergePatch(stored.requested?.definition ?? definitionOf(stored), reactorPatch(await ctx.json())));
        await reactors.replace(stored.id, definition, ctx.caller.application.id, failure(definition), causeOf(ctx));
        return { status: 204 };
      }),
    },
    {
      method: 'DELETE',
      path: '/reactors/:id',
      handler: managed('reactor:delete', async (ctx) => {
        await deleteReactor(deps, id(ctx), causeOf(ctx));
        return { status: 204 };
      }),
    },
    {
      method: 'POST',
      path: '/reactors/:id/react',
      handler: async (ctx) => {
        const react = await prepared(ctx);
        const callbackUrl = parseCallbackUrl(react.invocation);
        if (callbackUrl === null) return answerFromCode(ctx.res, await react.run({ async: false }), { [traceHeader]: ctx.traceId });
        // The legacy callback_url turns the call into react-async, its result also posted to the URL (vendor §3.5).
        return runAsync(ctx, react, (answer) => deliverCallback(deps.forwarder, callbackUrl, answer, deps.log, deps.callbackFirstRetryMs));
      },
    },
    {
      method: 'POST',
      path: '/reactors/:id/react-async',
      handler: async (ctx) => runAsync(ctx, await prepared(ctx)),
    },
    {
      method: 'GET',
      path: '/reactors/:id/results/:requestId',
      handler: async (ctx) => {
        requireInvoker(ctx.caller);
        const result = await results.get(reactors.require(id(ctx)).id, ctx.params.requestId as string);
        if (result === undefined) throw new ApiProblem(404, `No result ${ctx.params.requestId} of reactor ${id(ctx)}: unknown, of another reactor, or older than 24 hours`);
        if (result === 'pending') return { status: 200, body: { status: 'pending' } };
        return answerFromCode(ctx.res, result, { [traceHeader]: ctx.traceId });
      },
    },
    ...formulaRoutes,
  ];

  /**
   * 202 with the request id at once; the code runs on, and the call's History entry is recorded when it ends, with
   * the whole trace. Its answer is kept as the result (and handed to `then`).
   */
  async function runAsync(ctx: RequestContext, react: Awaited<ReturnType<typeof prepared>>, then?: (answer: ReactAnswer) => void): Promise<'sent'> {
    const requestId = await results.start(react.reactor.id);
    react.record.async_request_id = requestId;
    answerFromCode(ctx.res, { status: 202, headers: {}, body: { asyncReactorRequestId: requestId } }, { [traceHeader]: ctx.traceId });
    const answer = await react.run({ async: true }).catch((error: unknown): ReactAnswer => {
      // A fault of ours, not the code's: logged as the server logs one, and the result says the run failed.
      deps.log(`internal error in reactor ${react.reactor.id}: ${(error as Error)?.stack ?? String(error)}`);
      return { status: 500, headers: { 'content-type': 'application/problem+json' }, body: new ApiProblem(500, 'The service failed to run the reactor').toBody() };
    });
    const refused = await results.finish(react.reactor.id, requestId, answer);
    if (refused !== null) {
      deps.log(`Reactor ${react.reactor.id}: the result of ${requestId} could not be kept: ${refused}`);
      const result = react.record.trace.at(-1);
      if (result) result.note = `${result.note}; not kept: ${refused}`;
    }
    then?.(answer);
    return 'sent';
  }
}
