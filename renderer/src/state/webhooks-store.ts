import { create } from 'zustand';
import { resourceStore } from './resource-store';

/** The webhooks with the event types they may subscribe to, as the Webhooks page lists and edits them. */
export const useWebhooksStore = resourceStore('listWebhooks');

interface DeliveriesHeard {
  /** By webhook id: how many times the live feed said its deliveries changed. */
  changes: Readonly<Record<string, number>>;
  heard(webhookIds: readonly string[]): void;
}

/** What the live feed says of deliveries: a webhook's list on show reads itself again when its count moves. */
export const useWebhookDeliveriesHeard = create<DeliveriesHeard>()((set) => ({
  changes: {},
  heard: (webhookIds) =>
    set(({ changes }) => ({ changes: { ...changes, ...Object.fromEntries(webhookIds.map((id) => [id, (changes[id] ?? 0) + 1])) } })),
}));
