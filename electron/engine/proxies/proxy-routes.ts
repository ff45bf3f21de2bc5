/**
 * `/proxies` (docs/api.md, Pre-configured proxies): create, list, read, replace, merge-patch and delete, for management
 * applications holding the proxy:* permission each needs.
 */
import type { ApplicationStore } from '../access/application-store';
import { managed } from '../access/managed-route';
import type { EventCause } from '../events/event-outbox';
import { dropCallKeyApplications } from '../access/runtime-keys';
import { syntaxError } from '../code-runtime';
import { type ExpressionEngine, ExpressionError } from '../expressions';
import { validationProblem } from '../server/problem';
import { causeOf } from '../server/event-cause';
import type { RequestContext, Route } from '../server/route-types';
import { requireMergePatchType } from '../server/merge-patch-type';
import { offsetPage } from '../server/offset-page';
import { fieldPath } from '../server/validation';
import { mergePatch } from '../vault/merge-patch';
import { callKeyUsersOf, definitionOf, type ProxyDefinition, type ProxyTransform, proxyView } from './proxy-model';
import { dependencyFailure, settled } from './dependency-check';
import { parseProxyRequest, patchInTermsOfDefinition } from './proxy-requests';
import type { ProxyStore } from './proxy-store';

export interface ProxyRouteDeps {
  proxies: ProxyStore;
  applications: ApplicationStore;
  expressions: ExpressionEngine;
  tenantId: string;
  /** Called when a saved proxy has a code transform: the code runtime gets ready before its first call. */
  codeSaved(): void;
  /** The folder whose node_modules holds node22 code's `runtime.dependencies` (null: none named). */
  dependenciesDir: string | null;
}

/**
 * What a definition needs beyond its shape, all reported at once: its application (public or private), templates
 * that parse and code that compiles.
 */
export function checkDefinition(definition: ProxyDefinition, { applications, expressions }: Pick<ProxyRouteDeps, 'applications' | 'expressions'>): void {
  const errors: Record<string, string[]> = {};
  const add = (path: PropertyKey[], message: string) => (errors[fieldPath(path, 'brackets')] ??= []).push(message);
  const template = (path: PropertyKey[], value: unknown) => {
    try {
      expressions.validateTokenTemplate(value);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      add(path, error.message);
    }
  };
  const codes: ProxyTransform[] = [];
  for (const side of ['request_transforms', 'response_transforms'] as const) {
    definition[side].forEach((t, i) => {
      if (t.code !== undefined) {
        codes.push(t);
        const problem = syntaxError(t.code);
        if (problem) add([side, i, 'code'], `code does not compile: ${problem}`);
      }
      if (t.options?.token !== undefined) template([side, i, 'options', 'token'], t.options.token);
      if (t.options?.value !== undefined) template([side, i, 'options', 'value'], t.options.value);
    });
  }
  if (definition.application_id !== null) {
    const application = applications.get(definition.application_id);
    if (!application || application.type === 'management') add(['application', 'id'], 'application must be an existing public or private application');
    else if (codes.length > 0 && codes.every((t) => t.options?.runtime?.image === 'node22')) {
      add(['application', 'id'], 'node22 code takes its permissions from options.runtime.permissions, not an application');
    }
  }
  if (Object.keys(errors).length > 0) throw validationProblem(errors);
}

/**
 * A POST or PUT body as the proxy it defines, refused with a 400 naming each field as /proxies refuses it; the code
 * runtime gets ready when it has code. The workbench's Proxies page saves through this too.
 */
export function acceptedDefinition(body: unknown, deps: ProxyRouteDeps): ProxyDefinition {
  const parsed = parseProxyRequest(body);
  checkDefinition(parsed, deps);
  if ([...parsed.request_transforms, ...parsed.response_transforms].some((t) => t.type === 'code')) deps.codeSaved();
  return parsed;
}

/** A proxy of the API goes, and with it the applications the engine kept for its node22 code's keys. */
export async function deleteProxy({ proxies, applications }: Pick<ProxyRouteDeps, 'proxies' | 'applications'>, id: string, cause: EventCause): Promise<void> {
  const proxy = proxies.requireWritable(id);
  await proxies.delete(proxy.id, cause);
  await dropCallKeyApplications(applications, callKeyUsersOf(proxy));
}

export function proxiesRoutes(deps: ProxyRouteDeps): Route[] {
  const { proxies, tenantId, dependenciesDir } = deps;
  const view = async (proxy: Parameters<typeof proxyView>[0]) => proxyView(await settled(proxies, proxy, dependenciesDir), tenantId);
  const failure = (definition: ProxyDefinition) => dependencyFailure(definition, dependenciesDir);
  const id = (ctx: RequestContext) => ctx.params.id as string;
  const definition = (body: unknown) => acceptedDefinition(body, deps);
  return [
    {
      method: 'POST',
      path: '/proxies',
      idempotent: true,
      handler: managed('proxy:create', async (ctx) => {
        const created = definition(await ctx.json());
        return { status: 201, body: await view(await proxies.create(created, ctx.caller.application.id, failure(created), causeOf(ctx))) };
      }),
    },
    {
      method: 'GET',
      path: '/proxies',
      handler: managed('proxy:read', async (ctx) => {
        const query = ctx.query();
        const listed = await Promise.all(proxies.list({ ids: query.getAll('id'), name: query.get('name') ?? undefined }).map(view));
        return { status: 200, body: offsetPage(listed, query) };
      }),
    },
    {
      method: 'GET',
      path: '/proxies/:id',
      handler: managed('proxy:read', async (ctx) => ({ status: 200, body: await view(proxies.require(id(ctx))) })),
    },
    {
      method: 'PUT',
      path: '/proxies/:id',
      idempotent: true,
      handler: managed('proxy:update', async (ctx) => {
        proxies.requireWritable(id(ctx));
        const replaced = definition(await ctx.json());
        return { status: 200, body: await view(await proxies.replace(id(ctx), replaced, ctx.caller.application.id, failure(replaced), causeOf(ctx))) };
      }),
    },
    {
      method: 'PATCH',
      path: '/proxies/:id',
      idempotent: true,
      handler: managed('proxy:update', async (ctx) => {
        requireMergePatchType(ctx, '/proxies/{id}');
        const stored = proxies.requireWritable(id(ctx));
        // Onto the latest change asked for: a failed one is what the client is fixing.
        const merged = definition(mergePatch(stored.requested?.definition ?? definitionOf(stored), patchInTermsOfDefinition(await ctx.json())));
        await proxies.replace(stored.id, merged, ctx.caller.application.id, failure(merged), causeOf(ctx));
        return { status: 204 };
      }),
    },
    {
      method: 'DELETE',
      path: '/proxies/:id',
      handler: managed('proxy:delete', async (ctx) => {
        await deleteProxy(deps, id(ctx), causeOf(ctx));
        return { status: 204 };
      }),
    },
  ];
}
