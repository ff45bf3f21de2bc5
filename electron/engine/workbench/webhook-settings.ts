import { randomUUID } from 'node:crypto';
import type { Request, SentReply } from '../../../shared/workbench/methods';
import type { DeliveryView, WebhookView } from '../../../shared/workbench/webhook-contract';
import { nowIso } from '../clock';
import { EVENT_TYPES } from '../events/event-types';
import { workbenchCause } from '../people/acting-person';
import { ApiProblem } from '../server/problem';
import type { DeliveredEvent, DeliveryStore } from '../webhooks/delivery-store';
import { MAX_WEBHOOKS, webhookWarnings, type StoredWebhook } from '../webhooks/webhook-model';
import { acceptedWebhook, type WebhookRouteDeps } from '../webhooks/webhook-routes';
import type { WebhookSigner } from '../webhooks/webhook-signer';

/** Who a webhook the workbench's user saved was created or changed by, where the API names the calling application. */
const WORKBENCH_AUTHOR = 'workbench';

export interface WebhookSettingsDeps extends WebhookRouteDeps {
  deliveries: DeliveryStore;
  signer: WebhookSigner;
  /** Sends what was just queued, without waiting for the next sweep. */
  wake(): void;
  /** Where the service serves the public key. */
  keyUrl(): string;
}

function viewOf(webhook: StoredWebhook): WebhookView {
  const { id, name, url, notify_email, events, status, created_at, modified_at } = webhook;
  return { id, name, url, notify_email, events, status, created_at, modified_at, warnings: webhookWarnings(url) };
}

/**
 * Webhooks as the workbench manages them: the same store and the same checks as /webhooks (acceptedWebhook), acting for
 * the workbench's user, so no management key is needed; their deliveries; a test event; the signing key.
 */
export function webhookSettings(deps: WebhookSettingsDeps) {
  const { webhooks, deliveries } = deps;
  /** Queues a delivery and sends it at once. */
  async function queue(webhookId: string, event: DeliveredEvent): Promise<DeliveryView> {
    const queued = await deliveries.add(webhookId, event);
    deps.wake();
    return queued;
  }
  return {
    list: (): SentReply<'listWebhooks'> => ({ webhooks: webhooks.list().map(viewOf), event_types: [...EVENT_TYPES], max_webhooks: MAX_WEBHOOKS }),
    async create(request: Request<'createWebhook'>): Promise<WebhookView> {
      return viewOf(await webhooks.create(await acceptedWebhook(request, false, deps.policy()), WORKBENCH_AUTHOR));
    },
    async update({ id, ...request }: Request<'updateWebhook'>): Promise<WebhookView> {
      webhooks.require(id);
      return viewOf(await webhooks.replace(id, await acceptedWebhook(request, true, deps.policy()), WORKBENCH_AUTHOR));
    },
    async remove({ id }: Request<'deleteWebhook'>): Promise<SentReply<'deleteWebhook'>> {
      await webhooks.delete(id);
      return { deleted: true };
    },
    deliveries({ id, limit }: Request<'listWebhookDeliveries'>): Promise<DeliveryView[]> {
      return deliveries.recent(webhooks.require(id).id, limit);
    },
    async redeliver({ delivery_id }: Request<'redeliverWebhook'>): Promise<DeliveryView> {
      const delivery = await deliveries.eventOf(delivery_id);
      if (!delivery) throw new ApiProblem(404, `No delivery ${delivery_id}: unknown, or older than the deliveries kept`);
      return queue(delivery.webhook_id, delivery.event);
    },
    sendTest({ id }: Request<'sendWebhookTest'>): Promise<DeliveryView> {
      const webhook = webhooks.require(id);
      const data = { webhook: { id: webhook.id, name: webhook.name }, actor: workbenchCause().actor };
      return queue(webhook.id, { id: randomUUID(), tenant_id: deps.tenantId, type: 'test', timestamp: nowIso(), trace_id: null, data });
    },
    signingKey: async (): Promise<SentReply<'webhookSigningKey'>> => ({ public_key_pem: await deps.signer.publicKeyPem(), url: deps.keyUrl() }),
    /** The webhook's name for History's sentences; undefined when there is none by that id. */
    nameOf: (id: string): string | undefined => webhooks.get(id)?.name,
    /** The webhook a delivery went to, for History's sentences. */
    deliveryOf: (id: string): Promise<{ webhook_id: string; event_type: string } | undefined> => deliveries.get(id),
  };
}

export type WebhookSettings = ReturnType<typeof webhookSettings>;
