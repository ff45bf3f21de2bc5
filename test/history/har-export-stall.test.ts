import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * A large HAR export (5,000 proxied requests, each with its 16 KiB body and its masked outbound body) beside another
 * client: that client's requests are answered within a second all the while, and the export is whole.
 */
const ENTRIES = 5_000;
const IN_FLIGHT = 16;
/** How long another client may wait while the export runs (the house's bound: no request makes another wait over 1 s). */
const PROBE_BOUND_MS = 1_000;

let t: TestEngine;
let card: string;
beforeAll(async () => {
  t = await startTestEngine({ echoPort: 0, workbenchRoutes: true });
  card = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: '4242424242424242' } })).body.id;
  const body = JSON.stringify({ card: `{{ ${card} }}`, filler: 'x'.repeat(16 * 1024) });
  const dispatcher = new Agent({ connections: IN_FLIGHT });
  let next = 0;
  const send = async () => {
    while (next < ENTRIES) {
      next++;
      const reply = await request(`${t.url}/proxy/orders`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', 'bt-api-key': t.privateKey, 'bt-proxy-url': t.engine.echoUrl! },
        body,
      });
      await reply.body.dump();
      if (reply.statusCode !== 200) throw new Error(`filling: ${reply.statusCode}`);
    }
  };
  const filling = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, send));
  console.log(`filled in ${Math.round(performance.now() - filling)} ms`);
  await dispatcher.close();
  await t.engine.history.flush();
}, 180_000);
afterAll(() => t.stop());

/** Every page of the export, as the History page asks for them, until the engine says there is no more. */
async function exportAll(): Promise<{ entries: number; pages: number }> {
  let before: string | undefined;
  let entries = 0;
  let pages = 0;
  do {
    const res = await t.workbench('exportHar', before === undefined ? {} : { before });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    entries += res.body.log.entries.length;
    pages++;
    before = res.body.next ?? undefined;
  } while (before !== undefined);
  return { entries, pages };
}

it(`answers another client within ${PROBE_BOUND_MS} ms while ${ENTRIES} large requests export as HAR`, async () => {
  let exporting = true;
  const probes: number[] = [];
  let slowest = 0;
  const probing = (async () => {
    while (exporting) {
      const sent = performance.now();
      const reply = await request(`${t.url}/tokens/${card}`, { headers: { 'bt-api-key': t.privateKey }, signal: AbortSignal.timeout(PROBE_BOUND_MS) });
      await reply.body.dump();
      slowest = Math.max(slowest, performance.now() - sent);
      probes.push(reply.statusCode);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  try {
    const { entries, pages } = await exportAll();
    console.log(`HAR export: ${entries} entries in ${pages} pages, ${Math.round(performance.now() - started)} ms; ${probes.length} probes, the slowest ${Math.round(slowest)} ms`);
    expect(entries).toBeGreaterThan(ENTRIES);
  } finally {
    exporting = false;
    await probing;
  }
  expect(probes.length).toBeGreaterThan(1);
  expect(probes.every((status) => status === 200)).toBe(true);
}, 180_000);
