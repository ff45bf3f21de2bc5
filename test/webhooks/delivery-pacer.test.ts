import { describe, expect, it } from 'vitest';
import { ClientActivity } from '../../electron/engine/server/client-activity';
import { DeliveryPacer, IDLE_AFTER_MS, SHARE_WHILE_BUSY } from '../../electron/engine/webhooks/delivery-pacer';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** Holds the thread for `ms`, as a request being answered or a client's turn does. */
const busy = (ms: number) => {
  for (const until = performance.now() + ms; performance.now() < until; );
};

/** Clients as the pacer sees them: a request being answered or not, since when, and the time spent answering. */
function clients() {
  let serving = false;
  let since = performance.now();
  let servedBefore = 0;
  return {
    serving: () => serving,
    quietFor: () => (serving ? 0 : performance.now() - since),
    servedMs: () => servedBefore + (serving ? performance.now() - since : 0),
    set(now: boolean) {
      if (serving === now) return;
      if (serving) servedBefore += performance.now() - since;
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
      pacer.started();
      await sleep(10);
      pacer.finished();
    }
    load.set(true);
    expect(pacer.waitMs()).toBe(0);
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
});
