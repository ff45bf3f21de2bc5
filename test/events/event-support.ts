import { expect } from 'vitest';
import type { EventType } from '../../electron/engine/events/event-types';
import type { OutboxEvent } from '../../electron/engine/events/event-outbox';
import type { StartOptions } from '../../electron/engine';
import type { DeliveryView } from '../../shared/workbench/webhook-contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/** Each engine's webhook and the receiver its deliveries go to. */
const subscriptions = new WeakMap<TestEngine, { webhookId: string; receiver: WebhookReceiver }>();

/**
 * A real engine with a webhook subscribed to the given event types, delivering to a receiver on loopback that
 * verifies each signature: the events are seen as a user's receiver sees them.
 */
export async function engineKeeping(types: readonly EventType[], options: StartOptions & { inMemory?: boolean; workbenchRoutes?: boolean } = {}): Promise<TestEngine> {
  const t = await startTestEngine({ inMemory: true, ...options, workbenchRoutes: true });
  const receiver = await startWebhookReceiver();
  receiver.useKey((await t.call('GET', '/keys/webhooks.v1.key')).text);
  const created = await t.call('POST', '/webhooks', { key: t.managementKey, body: { name: 'events under test', url: receiver.url, events: types } });
  expect(created.status, created.text).toBe(201);
  subscriptions.set(t, { webhookId: created.body.id, receiver });
  const stop = t.stop.bind(t);
  t.stop = async () => {
    await stop();
    await receiver.close();
  };
  return t;
}

/**
 * The events the engine raised, oldest first, each delivered and its signature verified: read once the reads' batch is
 * stored (a timer due after the batch's own always fires after it) and every delivery of them has settled.
 */
export async function raised(t: TestEngine, type?: EventType): Promise<OutboxEvent[]> {
  const { webhookId, receiver } = subscriptions.get(t)!;
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (let tries = 0; ; tries++) {
    const deliveries: DeliveryView[] = (await t.workbench('listWebhookDeliveries', { id: webhookId, limit: 100 })).body;
    if ((await t.engine.outbox.pending(1)).length === 0 && deliveries.every((delivery) => delivery.state === 'delivered')) {
      const byId = new Map(receiver.received.map((delivery) => [delivery.body.event.id, delivery]));
      const events = deliveries.reverse().map((delivery) => {
        const received = byId.get(delivery.event_id)!;
        expect(received.rawVerified).toBe(true);
        return received.body.event as OutboxEvent;
      });
      return type === undefined ? events : events.filter((event) => event.type === type);
    }
    if (tries === 250) throw new Error('the events raised were not all delivered within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The envelope every event has (vendor-surfaces.md §5.4), with the actor and the trace id of its cause. */
export function expectEnvelope(event: OutboxEvent, t: TestEngine, cause: { actorId?: string; traceId: string | null; actorType?: string }): void {
  expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(event.tenant_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(new Date(event.timestamp).toISOString()).toBe(event.timestamp);
  expect(event.trace_id).toBe(cause.traceId);
  if (cause.actorId !== undefined) {
    expect(event.data.actor).toEqual({ id: cause.actorId, name: expect.any(String), type: cause.actorType ?? 'application' });
  }
  void t;
}

/** An application's id by its key (GET /applications/key). */
export async function applicationIdOf(t: TestEngine, key: string): Promise<string> {
  return (await t.call('GET', '/applications/key', { key })).body.id as string;
}

export const traced = (traceId: string) => ({ 'BT-TRACE-ID': traceId });
