import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createToken, startTestEngine, type TestEngine } from '../support/test-engine';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Deliveries give way to clients (docs/api.md, Webhooks): a webhook on `token.read` under a stream of reads gets a
 * small share of the engine while the reads go on, and every event once they stop.
 */
let t: TestEngine;
let hooks: WebhookReceiver;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  hooks = await startWebhookReceiver();
  hooks.useKey((await t.call('GET', '/keys/webhooks.v1.key')).text);
});
afterAll(async () => {
  await t.stop();
  await hooks.close();
});

it('holds most token.read deliveries back while clients read, then delivers every one', async () => {
  const tokenId = await createToken(t, 'token', 'pacing');
  const made = await t.call('POST', '/webhooks', { key: t.managementKey, body: { name: 'reads', url: hooks.url, events: ['token.read'] } });
  expect(made.status, made.text).toBe(201);

  // A count of reads, not a time: a loaded machine (CI) reads slower, and the share is what is checked.
  let reads = 0;
  const reader = async () => {
    while (reads < 400) {
      const res = await t.call('GET', `/tokens/${tokenId}`, { key: t.privateKey });
      expect(res.status).toBe(200);
      reads++;
    }
  };
  await Promise.all([reader(), reader(), reader(), reader()]);
  const duringLoad = hooks.received.length;
  expect(duringLoad).toBeLessThan(reads / 2);

  for (let waited = 0; new Set(hooks.received.map((d) => d.body.event.id)).size < reads && waited < 20_000; waited += 50) await sleep(50);
  expect(new Set(hooks.received.map((d) => d.body.event.id)).size).toBe(reads);
  expect(hooks.received.every((d) => d.rawVerified)).toBe(true);
}, 30_000);
