import { expect } from 'vitest';
import type { EventType } from '../../electron/engine/events/event-types';
import type { OutboxEvent } from '../../electron/engine/events/event-outbox';
import type { StartOptions } from '../../electron/engine';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** A real engine whose outbox keeps the given event types (what a webhook subscribed to them would make it keep). */
export async function engineKeeping(types: readonly EventType[], options: StartOptions & { inMemory?: boolean; workbenchRoutes?: boolean } = {}): Promise<TestEngine> {
  const t = await startTestEngine({ inMemory: true, ...options });
  t.engine.outbox.subscribe(types);
  return t;
}

/**
 * The events the engine raised and still holds, oldest first: read once the reads' batch is stored (a timer due
 * after the batch's own always fires after it).
 */
export async function raised(t: TestEngine, type?: EventType): Promise<OutboxEvent[]> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  const events = t.engine.outbox.pending(10_000).map((p) => p.event);
  return type === undefined ? events : events.filter((event) => event.type === type);
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
