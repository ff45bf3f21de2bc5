/**
 * `/webhooks` (docs/api.md, Webhooks): create, list, read, replace and delete for management applications holding the
 * webhook:* permission each needs; the event types; and `GET /ping`, the liveness check the node SDK calls
 * `webhooks.ping`.
 */
import { managed } from '../access/managed-route';
import { EVENT_TYPES } from '../events/event-types';
import { destinationRefusal, type DestinationPolicy } from '../proxy/destination-policy';
import { ApiProblem } from '../server/problem';
import type { RequestContext, Route } from '../server/route-types';
import { parseWebhookRequest, webhookView, type WebhookDefinition } from './webhook-model';
import type { WebhookStore } from './webhook-store';

export interface WebhookRouteDeps {
  webhooks: WebhookStore;
  tenantId: string;
  /** The destination policy in force now: a URL it refuses is refused when saved. */
  policy: () => DestinationPolicy;
}

/** A body of POST or PUT /webhooks (or the workbench's), checked whole, its URL under the destination policy. */
export async function acceptedWebhook(body: unknown, replace: boolean, policy: DestinationPolicy): Promise<WebhookDefinition> {
  const definition = parseWebhookRequest(body, replace);
  const refused = await destinationRefusal(new URL(definition.url), policy);
  if (refused !== undefined) {
    const message = `url is refused by the destination policy: ${refused}`;
    throw new ApiProblem(400, message, { url: [message] });
  }
  return definition;
}

export function webhookRoutes({ webhooks, tenantId, policy }: WebhookRouteDeps): Route[] {
  const id = (ctx: RequestContext) => ctx.params.id as string;
  return [
    {
      method: 'GET',
      path: '/ping',
      public: true,
      handler: () => ({ status: 200 }),
    },
    {
      method: 'POST',
      path: '/webhooks',
      handler: managed('webhook:create', async (ctx) => {
        const definition = await acceptedWebhook(await ctx.json(), false, policy());
        return { status: 201, body: webhookView(await webhooks.create(definition, ctx.caller.application.id), tenantId) };
      }),
    },
    {
      method: 'GET',
      path: '/webhooks',
      handler: managed('webhook:read', () => {
        const data = webhooks.list().map((webhook) => webhookView(webhook, tenantId));
        return { status: 200, body: { pagination: { page_size: data.length, next: null }, data } };
      }),
    },
    {
      method: 'GET',
      path: '/webhooks/event-types',
      handler: managed('webhook:read', () => ({ status: 200, body: EVENT_TYPES })),
    },
    {
      method: 'GET',
      path: '/webhooks/:id',
      handler: managed('webhook:read', (ctx) => ({ status: 200, body: webhookView(webhooks.require(id(ctx)), tenantId) })),
    },
    {
      method: 'PUT',
      path: '/webhooks/:id',
      handler: managed('webhook:update', async (ctx) => {
        webhooks.require(id(ctx));
        const definition = await acceptedWebhook(await ctx.json(), true, policy());
        return { status: 200, body: webhookView(await webhooks.replace(id(ctx), definition, ctx.caller.application.id), tenantId) };
      }),
    },
    {
      method: 'DELETE',
      path: '/webhooks/:id',
      handler: managed('webhook:delete', async (ctx) => {
        await webhooks.delete(id(ctx));
        return { status: 204 };
      }),
    },
  ];
}
