import { causeOf } from '../server/event-cause';
import type { Route } from '../server/route-types';
import { parseWith } from '../server/validation';
import type { Application, ApplicationStore, NewApiKey } from './application-store';
import {
  applicationKeysQuery,
  applicationListQuery,
  applicationRequest,
  applicationUpdateRequest,
  permissionsQuery,
} from './application-requests';
import { managed } from './managed-route';
import { listPermissions } from './permissions';

/** An application as answered when a key was just made: that key with its secret, once, in `keys` and as `key`. */
const withNewKey = (application: Application, key: NewApiKey | undefined) => ({
  ...application,
  keys: application.keys.map((k) => (k.id === key?.id ? key : k)),
  ...(key ? { key: key.key } : {}),
});

/**
 * Applications and their keys, for `management` applications, and the permissions each application type may hold,
 * for any key (docs/api.md, Applications and keys).
 */
export function applicationRoutes(applications: ApplicationStore): Route[] {
  const id = (params: Record<string, string | undefined>) => params.id as string;
  return [
    {
      method: 'POST',
      path: '/applications',
      idempotent: true,
      handler: managed('application:create', async (ctx) => {
        const input = parseWith(applicationRequest, await ctx.json());
        ctx.log.requestBody = input;
        const { application, key } = await applications.create(input, ctx.caller.application.id, { create: input.create_key }, causeOf(ctx));
        return { status: 201, body: withNewKey(application, key) };
      }),
    },
    {
      method: 'GET',
      path: '/applications',
      handler: managed('application:read', (ctx) => {
        const query = ctx.query();
        const { page, size } = parseWith(applicationListQuery, Object.fromEntries(query));
        const { total, items } = applications.page(page, size, { ids: query.getAll('id'), types: query.getAll('type') });
        return {
          status: 200,
          body: {
            pagination: { total_items: total, page_number: page, page_size: size, total_pages: Math.ceil(total / size) },
            data: items,
          },
        };
      }),
    },
    {
      method: 'GET',
      path: '/permissions',
      handler: (ctx) => {
        const { application_type } = parseWith(permissionsQuery, Object.fromEntries(ctx.query()));
        return { status: 200, body: listPermissions(application_type) };
      },
    },
    {
      method: 'GET',
      path: '/applications/key',
      handler: (ctx) => ({ status: 200, body: applications.require(ctx.caller.application.id) }),
    },
    {
      method: 'GET',
      path: '/applications/:id',
      handler: managed('application:read', (ctx) => ({ status: 200, body: applications.require(id(ctx.params)) })),
    },
    {
      method: 'PUT',
      path: '/applications/:id',
      idempotent: true,
      handler: managed('application:update', async (ctx) => {
        const { type } = applications.require(id(ctx.params));
        const input = parseWith(applicationUpdateRequest(type), await ctx.json());
        ctx.log.requestBody = input;
        return { status: 200, body: await applications.update(id(ctx.params), input, ctx.caller.application.id, causeOf(ctx)) };
      }),
    },
    {
      method: 'DELETE',
      path: '/applications/:id',
      handler: managed('application:delete', async (ctx) => {
        await applications.delete(id(ctx.params), causeOf(ctx));
        return { status: 204 };
      }),
    },
    {
      method: 'POST',
      path: '/applications/:id/regenerate',
      idempotent: true,
      handler: managed('application:update', async (ctx) => {
        const { application, key } = await applications.regenerateKey(id(ctx.params), ctx.caller.application.id, causeOf(ctx));
        return { status: 200, body: withNewKey(application, key) };
      }),
    },
    {
      method: 'POST',
      path: '/applications/:id/keys',
      idempotent: true,
      handler: managed('application:update', async (ctx) => ({ status: 201, body: await applications.createKey(id(ctx.params), ctx.caller.application.id, causeOf(ctx)) })),
    },
    {
      method: 'GET',
      path: '/applications/:id/keys',
      handler: managed('application:read', (ctx) => {
        const query = ctx.query();
        parseWith(applicationKeysQuery, Object.fromEntries(query));
        const ids = query.getAll('id');
        const keys = applications.listKeys(id(ctx.params));
        return { status: 200, body: ids.length ? keys.filter((k) => ids.includes(k.id)) : keys };
      }),
    },
    {
      method: 'GET',
      path: '/applications/:id/keys/:keyId',
      handler: managed('application:read', (ctx) => ({ status: 200, body: applications.getKey(id(ctx.params), ctx.params.keyId as string) })),
    },
    {
      method: 'DELETE',
      path: '/applications/:id/keys/:keyId',
      handler: managed('application:update', async (ctx) => {
        await applications.deleteKey(id(ctx.params), ctx.params.keyId as string, causeOf(ctx));
        return { status: 204 };
      }),
    },
  ];
}
