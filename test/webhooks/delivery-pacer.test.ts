import { describe, expect, it } from 'vitest';
import { DeliveryPacer, IDLE_AFTER_MS, SHARE_WHILE_BUSY } from '../../electron/engine/webhooks/delivery-pacer';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A pacer whose clients last asked `since()` ms ago. */
function pacerWith(since: () => number) {
  return new DeliveryPacer(since);
}

describe('DeliveryPacer', () => {
  it('lets every delivery go at once while no client is being served', async () => {
    const pacer = pacerWith(() => Number.POSITIVE_INFINITY);
    pacer.started();
    await sleep(60);
    pacer.finished();
    pacer.spent(500);
    expect(pacer.waitMs()).toBe(0);
  });

  it('lets a lone delivery go at once while clients are served', () => {
    const pacer = pacerWith(() => 0);
    expect(pacer.waitMs()).toBe(0);
  });

  it('holds deliveries back once they used their share while clients are served, until the clients pause', async () => {
    let lastRequest = performance.now();
    const pacer = pacerWith(() => performance.now() - lastRequest);
    pacer.started();
    // Clients keep asking while the delivery is in flight, for longer than the burst it may take at once.
    for (let i = 0; i < 6; i++) {
      await sleep(10);
      lastRequest = performance.now();
    }
    pacer.finished();
    const wait = pacer.waitMs();
    expect(wait).toBeGreaterThan(0);
    // It waits no longer than the clients' pause that would make the engine idle.
    expect(wait).toBeLessThanOrEqual(IDLE_AFTER_MS);
    await sleep(IDLE_AFTER_MS + 5);
    expect(pacer.waitMs()).toBe(0);
  });

  it('gives deliveries their share back as time passes under load', async () => {
    let lastRequest = performance.now();
    const pacer = pacerWith(() => performance.now() - lastRequest);
    pacer.spent(5 / SHARE_WHILE_BUSY);
    expect(pacer.waitMs()).toBeGreaterThan(0);
    // Clients keep asking: the share earns the debt back (at most 100 ms of it) within 100 / share ms.
    const until = performance.now() + 100 / SHARE_WHILE_BUSY + 50;
    while (pacer.waitMs() > 0 && performance.now() < until) {
      await sleep(20);
      lastRequest = performance.now();
    }
    expect(pacer.waitMs()).toBe(0);
  }, 10_000);
});
