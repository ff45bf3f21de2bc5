import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { resolveConfig } from '../../electron/engine/engine-config';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase, type Db } from '../../electron/engine/storage/database';
import { createWebhooks, type Webhooks } from '../../electron/engine/webhooks/webhooks';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';

/**
 * Events raised through the outbox, as the features raise them, reach the webhooks that want them: only a committed
 * change's, once per enabled webhook subscribed to its type, with the data, actor and trace id it was raised with.
 */
let db: Db;
let webhooks: Webhooks;
let outbox: EventOutbox;
let receiver: WebhookReceiver;

async function start(): Promise<void> {
  db = openDatabase({ dataDir: null });
  outbox = new EventOutbox(unitsOf(db), 'tenant-1');
  webhooks = await createWebhooks({ units: unitsOf(db), sealer: new Sealer(randomBytes(32)), outbox, tenantId: 'tenant-1', config: resolveConfig({ log: () => undefined }), ownPorts: () => [], clients: { serving: () => false, quietFor: () => Number.POSITIVE_INFINITY, servedMs: () => 0, requests: () => 0 } });
  webhooks.dispatcher.start();
  receiver = await startWebhookReceiver();
  receiver.useKey(await webhooks.signer.publicKeyPem());
}
afterEach(async () => {
  await webhooks.stop();
  await receiver.close();
  db.close();
});

const hook = (events: string[], url = receiver.url) => webhooks.store.create({ name: 'hook', url, notify_email: null, events: events as never }, 'app-1');
const tokenCreated = (id: string) => ({ type: 'token.created' as const, data: () => ({ token: { id, type: 'card' } }), actor: { id: 'app-1', type: 'application' as const }, traceId: `trace-${id}` });

describe('the outbox and the webhooks', () => {
  it('subscribes the outbox to the types enabled webhooks want, and to none once they are gone or disabled', async () => {
    await start();
    expect(outbox.wants('token.created')).toBe(false);
    const first = await hook(['token.created', 'token.read']);
    await hook(['proxy.invoked']);
    expect(['token.created', 'token.read', 'proxy.invoked', 'token.deleted'].map((type) => outbox.wants(type as never))).toEqual([true, true, true, false]);
    await webhooks.store.disable(first.id);
    expect(outbox.wants('token.created')).toBe(false);
    await webhooks.store.replace(first.id, { name: 'hook', url: receiver.url, notify_email: null, events: ['token.updated'], status: 'enabled' }, 'app-1');
    expect([outbox.wants('token.updated'), outbox.wants('token.created')]).toEqual([true, false]);
    await webhooks.store.deleteAll();
    expect(outbox.wants('token.updated')).toBe(false);
  });

  it('delivers a committed change’s event to each webhook that wants it, and nothing of a rolled-back one', async () => {
    await start();
    await hook(['token.created']);
    await hook(['token.created', 'token.deleted']);
    await hook(['token.deleted']);
    db.transaction(() => outbox.raise(tokenCreated('kept')))();
    expect(() =>
      db.transaction(() => {
        outbox.raise(tokenCreated('rolled-back'));
        throw new Error('the change failed');
      })(),
    ).toThrow('the change failed');
    const delivered = await receiver.waitFor(2);
    await sleep(100);
    expect(receiver.received).toHaveLength(2);
    for (const { body, rawVerified } of delivered) {
      expect(rawVerified).toBe(true);
      expect(body.event).toMatchObject({ type: 'token.created', tenant_id: 'tenant-1', trace_id: 'trace-kept', data: { token: { id: 'kept', type: 'card' }, actor: { id: 'app-1', type: 'application' } } });
    }
    expect(delivered[0].body.event.id).toBe(delivered[1].body.event.id);
    expect(await outbox.pending(10)).toEqual([]);
  });

  it('hands over events raised before the dispatcher started (left by a previous run)', async () => {
    db = openDatabase({ dataDir: null });
    outbox = new EventOutbox(unitsOf(db), 'tenant-1');
    webhooks = await createWebhooks({ units: unitsOf(db), sealer: new Sealer(randomBytes(32)), outbox, tenantId: 'tenant-1', config: resolveConfig({ log: () => undefined }), ownPorts: () => [], clients: { serving: () => false, quietFor: () => Number.POSITIVE_INFINITY, servedMs: () => 0, requests: () => 0 } });
    receiver = await startWebhookReceiver();
    await hook(['token.created']);
    for (let i = 0; i < 3; i++) outbox.raise(tokenCreated(`early-${i}`));
    await sleep(50);
    expect(receiver.received).toHaveLength(0);
    webhooks.dispatcher.start();
    // Sent side by side: they may arrive in any order.
    const tokens = (await receiver.waitFor(3)).map((d) => (d.body.event.data.token as { id: string }).id);
    expect(tokens.sort()).toEqual(['early-0', 'early-1', 'early-2']);
  });
});
