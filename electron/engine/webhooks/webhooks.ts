/**
 * The webhooks feature put together over the engine's database and outbox: the store, the deliveries, the signing key,
 * a forwarder of its own (the proxy's destination policy, the webhooks' deadline) and the dispatcher.
 */
import type { EngineConfig } from '../engine-config';
import type { EventOutbox } from '../events/event-outbox';
import { createForwarder } from '../proxy/forwarder';
import type { Sealer } from '../storage/crypto';
import type { AnyUnitRunner } from '../storage/unit';
import { DeliveryPacer, type ClientLoad } from './delivery-pacer';
import { DeliveryStore } from './delivery-store';
import { createWebhookDispatcher, WEBHOOK_TIMEOUT_MS } from './webhook-dispatcher';
import type { WebhookRouteDeps } from './webhook-routes';
import { WebhookSigner } from './webhook-signer';
import { WebhookStore } from './webhook-store';

export interface WebhooksOptions {
  /** The webhooks', deliveries' and signing key's statements. */
  units: AnyUnitRunner;
  sealer: Sealer;
  outbox: EventOutbox;
  tenantId: string;
  /** Read when used: Settings may change the destination policy while the engine runs. */
  config: Pick<EngineConfig, 'denyPrivateDestinations' | 'webhookRetryDelaysMs' | 'headerPrefix' | 'log'>;
  /** Tokenbench's own ports, which no webhook may reach (a delivery to itself would raise events in a loop). */
  ownPorts: () => readonly number[];
  /** The echo destination's ports, which the destination policy lets through as the proxy's does. */
  echoPorts?: () => readonly number[];
  /** Whether clients are being served: deliveries give way to them (delivery-pacer.ts). */
  clients: ClientLoad;
}

export async function createWebhooks({ units, sealer, outbox, tenantId, config, ownPorts, echoPorts, clients }: WebhooksOptions) {
  const store = new WebhookStore(units, outbox);
  await store.load();
  const deliveries = new DeliveryStore(units, outbox, store);
  const signer = new WebhookSigner(units, sealer);
  const forwarder = createForwarder({ timeoutMs: WEBHOOK_TIMEOUT_MS, denyPrivateDestinations: config.denyPrivateDestinations, ownPorts, echoPorts });
  const dispatcher = createWebhookDispatcher({
    outbox,
    webhooks: store,
    deliveries,
    signer,
    forwarder,
    pacer: new DeliveryPacer(clients),
    retryDelaysMs: config.webhookRetryDelaysMs,
    headerPrefix: config.headerPrefix,
    log: config.log,
  });
  const routes: WebhookRouteDeps = { webhooks: store, tenantId, policy: () => ({ denyPrivateDestinations: config.denyPrivateDestinations, ownPorts, echoPorts }) };
  return {
    store,
    deliveries,
    signer,
    dispatcher,
    /** What the routes and the workbench's settings check a webhook with. */
    routes,
    /** The destination policy changed in Settings: deliveries from now on follow it. */
    policyChanged(denyPrivateDestinations: boolean): void {
      forwarder.configure({ timeoutMs: WEBHOOK_TIMEOUT_MS, denyPrivateDestinations });
    },
    async stop(): Promise<void> {
      await dispatcher.stop();
      await forwarder.close();
    },
  };
}

export type Webhooks = Awaited<ReturnType<typeof createWebhooks>>;
