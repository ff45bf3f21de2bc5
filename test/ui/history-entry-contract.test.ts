import { afterEach, beforeEach, expect, it } from 'vitest';
import { historyListSchema } from '../../shared/workbench/history-contract';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** The GUI reads proxy entries through the shared contract: what the engine's history serves must fit it. */

let bench: TestEngine;
beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
});
afterEach(() => bench.stop());

async function historyPage() {
  await bench.engine.history.flush();
  const res = await bench.workbench('listHistory');
  expect(res.status).toBe(200);
  return historyListSchema.parse(res.body);
}

it("reads every kind of proxy entry the engine writes as the contract's proxy details", async () => {
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: '4242424242424242' } });
  const send = (destination: string, body: unknown) =>
    bench.call('POST', '/proxy', { key: bench.privateKey, body, headers: { 'BT-PROXY-URL': destination } });
  expect((await send(bench.engine.echoUrl!, { pan: `{{ ${card.body.id} }}` })).status).toBe(200);
  expect((await send(bench.engine.echoUrl!, { pan: '{{ missing }}' })).status).toBe(400);
  expect((await send('http://127.0.0.1:1', { pan: `{{ ${card.body.id} }}` })).status).toBe(502);

  const proxied = (await historyPage()).filter((entry) => entry.kind === 'proxy');
  expect(proxied.map((entry) => [entry.status, entry.proxy?.status_source])).toEqual([
    [502, 'proxy'],
    [400, 'proxy'],
    [200, 'destination'],
  ]);
  expect(proxied[2].proxy?.outbound?.detokenized_body).toBe('{"pan":"XXXXXXXXXXXX4242"}');
  expect(proxied[0].proxy?.failure?.kind).toBe('unreachable');
});

it('still lists a proxy entry whose details are in a shape this version does not know, without them', () => {
  const entry = {
    id: 'e1',
    at: '2026-11-25T00:00:00.000Z',
    kind: 'proxy',
    method: 'POST',
    path: '/proxy',
    status: 200,
    duration_ms: 1,
    application_id: null,
    trace_id: null,
    request_headers: [],
    details: { note: '[not kept: it could not be serialized]' },
  };
  const [read] = historyListSchema.parse([entry]);
  expect(read.proxy).toBeNull();
  expect(read.status).toBe(200);
});
