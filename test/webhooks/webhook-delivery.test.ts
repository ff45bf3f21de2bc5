import { createPrivateKey, createPublicKey } from 'node:crypto';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { vaultSql } from '../support/vault-sql';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Deliveries to a real receiver on loopback (docs/api.md, Webhooks): signed as §5.4 says, verified with the key the
 * engine serves; retried on the shortened schedule until a 2xx, exhausted after six attempts; a webhook whose last ten
 * events exhausted is disabled until a replace enables it. Events come from the workbench's test event.
 */
const RETRIES_MS = [20, 20, 20, 20, 20];
let t: TestEngine;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true, webhookRetryDelaysMs: RETRIES_MS });
});
afterAll(() => t.stop());
afterEach(async () => {
  for (const webhook of (await t.call('GET', '/webhooks', { key: t.managementKey })).body.data) {
    await t.call('DELETE', `/webhooks/${webhook.id}`, { key: t.managementKey });
  }
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(answer?: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(answer);
  started.useKey((await t.call('GET', '/keys/webhooks.v1.key')).text);
  receivers.push(started);
  return started;
}

async function webhookTo(url: string, events = ['token.created']): Promise<string> {
  const res = await t.call('POST', '/webhooks', { key: t.managementKey, body: { name: 'receiver', url, events } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const sendTest = async (id: string) => (await t.workbench('sendWebhookTest', { id })).body;
const deliveriesOf = async (id: string) => (await t.workbench('listWebhookDeliveries', { id })).body;

async function settled(id: string, count: number) {
  for (let tries = 0; tries < 500; tries++) {
    const listed = await deliveriesOf(id);
    if (listed.length >= count && listed.every((d: { state: string }) => d.state !== 'pending')) return listed;
    await sleep(20);
  }
  throw new Error(`deliveries of ${id} did not settle`);
}

describe('a delivery', () => {
  it('is POSTed with the envelope and a PSS signature that verifies on the raw bytes and on the re-stringified body', async () => {
    const hooks = await receiver();
    const id = await webhookTo(hooks.url);
    const queued = await sendTest(id);
    const [delivery] = await hooks.waitFor(1);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['bt-signature-version']).toBe('1');
    expect(delivery.rawVerified).toBe(true);
    expect(delivery.restringifiedVerified).toBe(true);
    expect(delivery.body).toEqual({
      delivered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      event: {
        id: queued.event_id,
        type: 'test',
        tenant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        timestamp: expect.any(String),
        trace_id: null,
        data: { webhook: { id, name: 'receiver' }, actor: { id: 'workbench', name: 'Tokenbench workbench', type: 'user' } },
      },
    });
    // Sent already canonical: keys sorted, no whitespace.
    expect(delivery.raw.startsWith('{"delivered_at":"')).toBe(true);
    const [record] = await settled(id, 1);
    expect(record).toMatchObject({ state: 'delivered', attempts: 1, last_status: 200, error: null, event_type: 'test', body: delivery.raw });
    expect(record.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('fails verification when the body is altered, so the check above can tell', async () => {
    const hooks = await receiver();
    await sendTest(await webhookTo(hooks.url));
    const [delivery] = await hooks.waitFor(1);
    const { verify, constants, createPublicKey } = await import('node:crypto');
    const key = createPublicKey((await t.call('GET', '/keys/webhooks.v1.key')).text);
    const altered = Buffer.from(delivery.raw.replace('"type":"test"', '"type":"tost"'));
    const signature = Buffer.from(delivery.headers['bt-signature'] as string, 'base64');
    expect(verify('sha256', altered, { key, padding: constants.RSA_PKCS1_PSS_PADDING }, signature)).toBe(false);
  });

  it('is tried again after a failure with the same event id, until a 2xx', async () => {
    let calls = 0;
    const hooks = await receiver(() => (++calls <= 2 ? 503 : 204));
    const id = await webhookTo(hooks.url);
    await sendTest(id);
    const attempts = await hooks.waitFor(3);
    expect(new Set(attempts.map((a) => a.body.event.id)).size).toBe(1);
    expect(attempts.every((a) => a.rawVerified)).toBe(true);
    const [record] = await settled(id, 1);
    expect(record).toMatchObject({ state: 'delivered', attempts: 3, last_status: 204, error: null });
  });

  it('is exhausted after six failed attempts, saying what the receiver answered', async () => {
    const hooks = await receiver(() => 500);
    const id = await webhookTo(hooks.url);
    await sendTest(id);
    await hooks.waitFor(6);
    const [record] = await settled(id, 1);
    expect(record).toMatchObject({ state: 'exhausted', attempts: 6, last_status: 500, error: 'the receiver answered 500' });
    await sleep(RETRIES_MS[0] * 5);
    expect(hooks.received).toHaveLength(6);
  });

  it('disables a webhook whose last ten events all exhausted, until a replace enables it', async () => {
    const hooks = await receiver(() => 500);
    const id = await webhookTo(hooks.url);
    for (let i = 0; i < 9; i++) await sendTest(id);
    await settled(id, 9);
    expect((await t.call('GET', `/webhooks/${id}`, { key: t.managementKey })).body.status).toBe('enabled');
    await sendTest(id);
    await settled(id, 10);
    const disabled = (await t.call('GET', `/webhooks/${id}`, { key: t.managementKey })).body;
    expect(disabled.status).toBe('disabled');

    // Nothing is sent to a disabled webhook; a replace without a status keeps it disabled.
    const before = hooks.received.length;
    await sendTest(id);
    const { id: _id, tenant_id: _t, status: _s, created_by: _c, created_at: _a, modified_by: _m, modified_at: _n, ...fields } = disabled;
    expect((await t.call('PUT', `/webhooks/${id}`, { key: t.managementKey, body: fields })).body.status).toBe('disabled');
    await sleep(100);
    expect(hooks.received).toHaveLength(before);

    // Enabled again: the delivery that waited goes out.
    const enabled = await t.call('PUT', `/webhooks/${id}`, { key: t.managementKey, body: { ...fields, status: 'enabled' } });
    expect(enabled.body.status).toBe('enabled');
    await hooks.waitFor(before + 1);
  });

  it('is queued again from its first attempt by a redelivery, with the same event', async () => {
    const hooks = await receiver();
    const id = await webhookTo(hooks.url);
    const first = await sendTest(id);
    await hooks.waitFor(1);
    const again = (await t.workbench('redeliverWebhook', { delivery_id: first.id })).body;
    expect(again).toMatchObject({ event_id: first.event_id, state: 'pending', attempts: 0 });
    expect(again.id).not.toBe(first.id);
    const both = await hooks.waitFor(2);
    expect(both.map((d) => d.body.event.id)).toEqual([first.event_id, first.event_id]);
    expect((await t.workbench('redeliverWebhook', { delivery_id: crypto.randomUUID() })).status).toBe(404);
  });
});

describe('the destination policy', () => {
  it("refuses a webhook to Tokenbench's own port, on create and on replace", async () => {
    const own = `${t.url}/tokens`;
    const created = await t.call('POST', '/webhooks', { key: t.managementKey, body: { name: 'loop', url: own, events: ['token.created'] } });
    expect(created.status).toBe(400);
    expect(created.body.errors.url[0]).toMatch(/^url is refused by the destination policy: .*Tokenbench's own port/);
    const hooks = await receiver();
    const id = await webhookTo(hooks.url);
    const replaced = await t.call('PUT', `/webhooks/${id}`, { key: t.managementKey, body: { name: 'loop', url: own.replace('127.0.0.1', 'localhost'), events: ['token.created'] } });
    expect(replaced.status).toBe(400);
    expect((await t.call('GET', `/webhooks/${id}`, { key: t.managementKey })).body.url).toBe(hooks.url);
  });

  it('fails an attempt when private destinations were denied since the webhook was saved', async () => {
    const hooks = await receiver();
    const id = await webhookTo(hooks.url);
    expect((await t.workbench('changeLimits', { denyPrivateDestinations: true })).status).toBe(200);
    try {
      await sendTest(id);
      const record = await vi.waitFor(async () => {
        const [attempted] = await deliveriesOf(id);
        expect(attempted.attempts).toBeGreaterThan(0);
        return attempted;
      });
      expect(record.error).toMatch(/refused by policy: .*private destinations are denied/);
      expect(record.last_status).toBeNull();
      expect(hooks.received).toHaveLength(0);
      const refused = await t.call('POST', '/webhooks', { key: t.managementKey, body: { name: 'private', url: hooks.url, events: ['token.created'] } });
      expect(refused.status).toBe(400);
    } finally {
      await t.workbench('changeLimits', { denyPrivateDestinations: null });
    }
  });
});

describe('a wipe of the vault', () => {
  it('takes the webhooks and their deliveries with it, and keeps the signing key', async () => {
    const key = (await t.call('GET', '/keys/webhooks.v1.key')).text;
    const hooks = await receiver();
    const id = await webhookTo(hooks.url);
    await sendTest(id);
    await hooks.waitFor(1);
    expect((await t.workbench('wipeVault', { confirm: 'wipe' })).status).toBe(200);
    // The vault's new first keys: the other tests' clean-up needs the management one.
    t.managementKey = (await t.workbench('takeWelcome')).body.keys.management.key;
    expect((await t.workbench('listWebhooks')).body.webhooks).toEqual([]);
    expect((await t.workbench('listWebhookDeliveries', { id })).status).toBe(404);
    expect((await t.call('GET', '/keys/webhooks.v1.key')).text).toBe(key);
  });
});

describe('the signing key', () => {
  it('is kept across a restart, its private half sealed in the vault', async () => {
    const dataDir = tempDir();
    const first = await startTestEngine({ dataDir });
    const pem = (await first.call('GET', '/keys/webhooks.v1.key')).text;
    await first.stop();
    const [{ sealed_private }] = await vaultSql<{ sealed_private: Buffer }>(dataDir, 'SELECT sealed_private FROM webhook_signing_key');
    expect(() => createPrivateKey({ key: sealed_private, format: 'der', type: 'pkcs8' })).toThrow();
    expect(sealed_private.includes(Buffer.from(createPublicKey(pem).export({ format: 'jwk' }).n!, 'base64url').subarray(0, 32))).toBe(false);
    const second = await startTestEngine({ dataDir });
    try {
      expect((await second.call('GET', '/keys/webhooks.v1.key')).text).toBe(pem);
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a stop', () => {
  it('does not wait for a receiver that holds a delivery, and the next start sends that delivery again', async () => {
    const dataDir = tempDir();
    const held: import('node:http').ServerResponse[] = [];
    const { createServer } = await import('node:http');
    const holding = createServer((_req, res) => void held.push(res));
    await new Promise<void>((resolve) => holding.listen(0, '127.0.0.1', resolve));
    const first = await startTestEngine({ dataDir, workbenchRoutes: true });
    const url = `http://127.0.0.1:${(holding.address() as import('node:net').AddressInfo).port}/hooks`;
    const id = (await first.call('POST', '/webhooks', { key: first.managementKey, body: { name: 'held', url, events: ['token.created'] } })).body.id;
    const queued = (await first.workbench('sendWebhookTest', { id })).body;
    while (held.length === 0) await sleep(10);
    // Well under the 10 s a receiver has to answer: the stop did not wait for it.
    expect(await Promise.race([first.stop().then(() => 'stopped'), sleep(5_000).then(() => 'still stopping')])).toBe('stopped');
    holding.closeAllConnections();
    holding.close();

    const hooks = await startWebhookReceiver();
    // Its first attempt goes to the closed address; the retry, to the new one.
    const second = await startTestEngine({ dataDir, workbenchRoutes: true, webhookRetryDelaysMs: RETRIES_MS });
    try {
      const webhook = (await second.workbench('listWebhooks')).body.webhooks[0];
      await second.workbench('updateWebhook', { ...webhook, url: hooks.url, warnings: undefined, created_at: undefined, modified_at: undefined });
      const [again] = await hooks.waitFor(1);
      expect(again.body.event.id).toBe(queued.event_id);
    } finally {
      await second.stop();
      await hooks.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
