import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../electron/engine/engine-config';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { ClientActivity } from '../../electron/engine/server/client-activity';
import { Sealer } from '../../electron/engine/storage/crypto';
import { openDatabase } from '../../electron/engine/storage/database';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { DeliveryPacer, IDLE_AFTER_MS, SHARE_WHILE_BUSY } from '../../electron/engine/webhooks/delivery-pacer';
import { createWebhooks } from '../../electron/engine/webhooks/webhooks';
import { startWebhookReceiver } from '../support/webhook-receiver';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** Holds the thread for `ms`, as a request being answered or a client's turn does. */
const busy = (ms: number) => {
  for (const until = performance.now() + ms; performance.now() < until; );
};

/** One delivery: `signing` runs while it is being signed, then its POST is in flight for `ms`. */
async function deliver(pacer: DeliveryPacer, ms: number, signing = () => undefined) {
  pacer.started();
  signing();
  pacer.posting();
  await sleep(ms);
  pacer.finished();
}

/** Clients as the pacer sees them: a request being answered or not, since when, the time spent answering, the requests. */
function clients() {
  let serving = false;
  let since = performance.now();
  let servedBefore = 0;
  let requests = 0;
  return {
    serving: () => serving,
    quietFor: () => (serving ? 0 : performance.now() - since),
    servedMs: () => servedBefore + (serving ? performance.now() - since : 0),
    requests: () => requests,
    set(now: boolean) {
      if (serving === now) return;
      if (serving) servedBefore += performance.now() - since;
      else requests++;
      since = performance.now();
      serving = now;
    },
  };
}

describe('DeliveryPacer', () => {
  it('never holds deliveries back while no request is being answered', async () => {
    const load = clients();
    const pacer = new DeliveryPacer(load);
    pacer.started();
    await sleep(60);
    pacer.finished();
    expect(pacer.waitMs()).toBe(0);
    expect(pacer.atOnce()).toBe(Number.POSITIVE_INFINITY);
  });

  it('lets a lone delivery go at once while a request is being answered, but only one at a time', () => {
    const load = clients();
    load.set(true);
    const pacer = new DeliveryPacer(load);
    expect(pacer.waitMs()).toBe(0);
    expect(pacer.atOnce()).toBe(1);
  });

  it('does not count a delivery in flight while no request is, as a client waiting for each webhook has it', async () => {
    const load = clients();
    const pacer = new DeliveryPacer(load);
    for (let i = 0; i < 5; i++) {
      load.set(true);
      await sleep(10);
      load.set(false);
      await deliver(pacer, 10);
    }
    load.set(true);
    expect(pacer.waitMs()).toBe(0);
  });

  it('does not hold back a client whose next request, sent once the webhook arrived, overlaps the end of its delivery', async () => {
    const load = clients();
    const pacer = new DeliveryPacer(load);
    for (let i = 0; i < 10; i++) {
      load.set(true);
      await sleep(2);
      load.set(false);
      pacer.started();
      pacer.posting();
      await sleep(10);
      // The receiver has the webhook: the client's next request starts before the delivery's answer is recorded.
      load.set(true);
      pacer.finished();
      load.set(false);
    }
    expect(pacer.waitMs()).toBe(0);
  });

  it('counts a delivery whole once a request started before its POST went out, which no client waiting for it sends', async () => {
    const load = clients();
    const pacer = new DeliveryPacer(load);
    // One connection whose requests take about as long as a delivery: its next request arrives while the delivery is
    // being signed, and the delivery's POST and its answer fall in the pause before the request after.
    for (let i = 0; i < 20; i++) {
      await deliver(pacer, 2, () => {
        load.set(true);
        busy(0.3);
        load.set(false);
      });
    }
    load.set(true);
    expect(pacer.waitMs()).toBeGreaterThan(0);
  });

  it('counts a delivery in flight across the short pauses of a client that sends each request as the last is answered', () => {
    const clients = new ClientActivity();
    const pacer = new DeliveryPacer(clients);
    pacer.started();
    // One connection's load: each request short, the pause before the next twice as long (the client's own turn),
    // so overlap with requests alone is a third of the time the delivery was in flight.
    for (let i = 0; i < 100; i++) {
      clients.requestStarted();
      busy(0.1);
      clients.requestEnded();
      busy(0.2);
    }
    clients.requestStarted();
    pacer.finished();
    expect(pacer.waitMs()).toBeGreaterThan(0);
  });

  it('holds deliveries back once they overlapped requests beyond their share, until the clients pause', async () => {
    const load = clients();
    load.set(true);
    const pacer = new DeliveryPacer(load);
    pacer.started();
    for (let i = 0; i < 6; i++) await sleep(10);
    pacer.finished();
    const wait = pacer.waitMs();
    expect(wait).toBeGreaterThan(0);
    load.set(false);
    expect(pacer.waitMs()).toBeLessThanOrEqual(IDLE_AFTER_MS);
    await sleep(IDLE_AFTER_MS + 5);
    expect(pacer.waitMs()).toBe(0);
  });

  it('gives deliveries their share back as time passes under load', async () => {
    const load = clients();
    load.set(true);
    const pacer = new DeliveryPacer(load);
    pacer.spent(5 / SHARE_WHILE_BUSY);
    expect(pacer.waitMs()).toBeGreaterThan(0);
    // The clients keep being served: the share earns the debt (at most 100 ms of it) back within 100 / share ms.
    const until = performance.now() + 100 / SHARE_WHILE_BUSY + 50;
    while (pacer.waitMs() > 0 && performance.now() < until) await sleep(20);
    expect(pacer.waitMs()).toBe(0);
  }, 10_000);

  it('keeps deliveries to their share of the time while one connection sends request after request, then delivers every event', async () => {
    const LOAD_MS = 2_000;
    const RECEIVER_MS = 20;
    const clients = new ClientActivity();
    const db = openDatabase({ dataDir: null });
    const outbox = new EventOutbox(unitsOf(db), 'tenant-1');
    const webhooks = await createWebhooks({ units: unitsOf(db), sealer: new Sealer(randomBytes(32)), outbox, tenantId: 'tenant-1', config: resolveConfig({ log: () => undefined }), ownPorts: () => [], clients });
    const arrivals: number[] = [];
    const receiver = await startWebhookReceiver(async () => {
      arrivals.push(performance.now());
      await sleep(RECEIVER_MS);
      return 200;
    });
    receiver.useKey(await webhooks.signer.publicKeyPem());
    try {
      await webhooks.store.create({ name: 'slow', url: receiver.url, notify_email: null, events: ['token.created'] }, 'app-1');
      webhooks.dispatcher.start();
      let raised = 0;
      const until = performance.now() + LOAD_MS;
      while (performance.now() < until) {
        clients.requestStarted();
        busy(0.2);
        db.transaction(() => outbox.raise({ type: 'token.created', data: () => ({ token: { id: `token-${raised++}`, type: 'card' } }), actor: { id: 'app-1', type: 'application' } }))();
        clients.requestEnded();
        // The client's turn before its next request (its own process, loopback, a busy machine): the engine is idle
        // meanwhile, so a delivery's work runs between the requests and overlaps none of them.
        await sleep(1);
      }
      // Each delivery that arrived during the load was in flight for the receiver's time at least.
      const inFlightMs = arrivals.filter((at) => at < until).length * RECEIVER_MS;
      expect(inFlightMs).toBeLessThanOrEqual(2 * SHARE_WHILE_BUSY * LOAD_MS + RECEIVER_MS);

      const delivered = () => new Set(receiver.received.filter((d) => d.status === 200).map((d) => (d.body.event.data.token as { id: string }).id)).size;
      for (const waitUntil = performance.now() + 20_000; delivered() < raised && performance.now() < waitUntil; ) await sleep(50);
      expect(delivered()).toBe(raised);
      expect(receiver.received.every((d) => d.rawVerified)).toBe(true);
    } finally {
      await webhooks.stop();
      await receiver.close();
      db.close();
    }
  }, 40_000);
});
