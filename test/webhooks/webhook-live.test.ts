import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveFeed, type LiveUpdate } from '../../electron/engine/workbench/live-feed';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * What the Webhooks page watches (docs/api.md, Workbench): the live feed names each webhook whose deliveries changed,
 * and a delivery waiting for a retry says when it is tried next.
 */
const RETRY_MS = 60_000;
let t: TestEngine;
let failing: WebhookReceiver;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true, webhookRetryDelaysMs: [RETRY_MS] });
  failing = await startWebhookReceiver(() => 503);
});
afterAll(async () => {
  await failing.close();
  await t.stop();
});

async function webhookTo(url: string): Promise<string> {
  const res = await t.workbench('createWebhook', { name: 'page', url, notify_email: null, events: ['token.created'] });
  expect(res.status, res.text).toBe(200);
  return res.body.id;
}

describe('a webhook on the Webhooks page', () => {
  it('is named by the live feed when a delivery is queued and when it is attempted', async () => {
    const { engine } = t;
    const feed = new LiveFeed(engine.events, () => engine.status(), () => engine.transactions.counts(), (view) => view);
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    const id = await webhookTo(failing.url);
    await t.workbench('sendWebhookTest', { id });
    await failing.waitFor(1);
    await vi.waitFor(() => expect(updates.flatMap((update) => update.webhooks ?? [])).toContain(id));
    stop();
    await t.workbench('deleteWebhook', { id });
  });

  it('says when a failed delivery is tried next', async () => {
    const id = await webhookTo(failing.url);
    await t.workbench('sendWebhookTest', { id });
    await failing.waitFor(2);
    const failed = await vi.waitFor(async () => {
      const [delivery] = (await t.workbench('listWebhookDeliveries', { id })).body;
      expect(delivery.attempts).toBe(1);
      return delivery;
    });
    expect(failed.state).toBe('pending');
    expect(failed.error).toBe('the receiver answered 503');
    const next = Date.parse(failed.next_attempt_at);
    expect(next - Date.parse(failed.attempted_at)).toBeGreaterThanOrEqual(RETRY_MS - 1000);
    expect(next - Date.parse(failed.attempted_at)).toBeLessThanOrEqual(RETRY_MS + 1000);
    await t.workbench('deleteWebhook', { id });
  });
});
