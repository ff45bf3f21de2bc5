import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { filesIn, startTestEngine, type TestEngine } from '../support/test-engine';

/** The workbench's explicit reveal of what left for the destination, over its session-guarded HTTP endpoint. */
const PAN = '4242424242424242';

let bench: TestEngine;
let appId: string;
let appKey: string;
let cardId: string;

const RULES = (permissions: string[]) => [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions }];

beforeEach(async () => {
  bench = await startTestEngine({ echoPort: 0, workbenchRoutes: true });
  const app = await bench.call('POST', '/applications', {
    key: bench.managementKey,
    body: { name: 'backend', type: 'private', rules: RULES(['token:create', 'token:use']) },
  });
  appId = app.body.id;
  appKey = app.body.key;
  cardId = (await bench.call('POST', '/tokens', { key: appKey, body: { type: 'card_number', data: PAN } })).body.id;
});
afterEach(() => bench.stop());

/** Sends `body` through the proxy to the echo destination and returns its history entry's id. */
async function proxied(body: unknown, raw?: string): Promise<string> {
  const traceId = `reveal-${Math.random()}`;
  const res = await bench.call('POST', '/proxy', {
    key: appKey,
    body: raw === undefined ? body : undefined,
    raw,
    headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'BT-TRACE-ID': traceId, ...(raw === undefined ? {} : { 'content-type': 'application/json' }) },
  });
  expect(res.status).toBe(200);
  await bench.engine.history.flush();
  return (await bench.engine.history.list(100)).find((entry) => entry.trace_id === traceId)!.id;
}

const reveal = (id: string, session?: string | null) => bench.workbench('revealOutbound', { id }, { session });

describe('revealing an outbound body', () => {
  it('answers the plaintext the destination received, uncached; history records the reveal by id, never the value, nor does disk', async () => {
    const id = await proxied({ pan: `{{ ${cardId} }}`, amount: 10 });
    const before = (await bench.engine.history.list(500)).length;
    const res = await reveal(id);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ detokenized_body: `{"pan":"${PAN}","amount":10}` });
    await bench.engine.history.flush();
    const after = await bench.engine.history.list(500);
    expect(after.length).toBe(before + 1);
    expect(after[0]).toMatchObject({
      kind: 'workbench',
      method: 'REVEAL',
      path: '/proxy',
      status: 200,
      // The application whose token:use rules detokenized it again.
      application_id: appId,
      details: { reveal: { target: 'outbound', entry_id: id, token_ids: [cardId] } },
    });
    expect(JSON.stringify(after)).not.toContain(PAN);
    for (const file of filesIn(bench.dataDir!)) {
      expect(readFileSync(file).includes(Buffer.from(PAN)), file).toBe(false);
    }
  });

  it("reveals a pre-configured proxy's detokenized body the same way, and records the reveal by id", async () => {
    const created = await bench.call('POST', '/proxies', { key: bench.managementKey, body: { name: 'charges', destination_url: bench.engine.echoUrl } });
    expect(created.status).toBe(201);
    const sent = await bench.call('POST', '/proxy', {
      key: appKey,
      body: { pan: `{{ ${cardId} }}` },
      headers: { 'BT-PROXY-KEY': created.body.key, 'BT-TRACE-ID': 'reveal-preconfigured' },
    });
    expect(sent.status).toBe(200);
    await bench.engine.history.flush();
    const id = (await bench.engine.history.list(100)).find((entry) => entry.trace_id === 'reveal-preconfigured')!.id;
    expect((await reveal(id)).body).toEqual({ detokenized_body: `{"pan":"${PAN}"}` });
    await bench.engine.history.flush();
    const [recorded] = await bench.engine.history.list(1);
    expect(recorded).toMatchObject({ kind: 'workbench', method: 'REVEAL', details: { reveal: { target: 'outbound', entry_id: id, token_ids: [cardId] } } });
    expect(JSON.stringify(recorded)).not.toContain(PAN);
  });

  it('reveals only what history kept of a large body, up to the expression its end cuts', async () => {
    const expression = `{{ ${cardId} }}`;
    const head = `{"pan":"${expression}","lines":"`;
    const filler = 'x'.repeat(16 * 1024 - 5 - head.length - '","tail":"'.length);
    const id = await proxied(undefined, `${head}${filler}","tail":"${expression}","more":"${'y'.repeat(3000)}"}`);
    expect((await reveal(id)).body).toEqual({ detokenized_body: `{"pan":"${PAN}","lines":"${filler}","tail":"` });
  });

  it('needs the session, and names the entry it cannot find', async () => {
    const id = await proxied({ pan: `{{ ${cardId} }}` });
    expect((await reveal(id, null)).status).toBe(401);
    expect((await reveal(id, 'another-run')).status).toBe(401);
    const missing = await reveal('no-such-entry');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('No such request in the history');
    // A reveal that could not happen is recorded too; one refused for want of a session never reached the model.
    await bench.engine.history.flush();
    const reveals = (await bench.engine.history.list(500)).filter((entry) => entry.kind === 'workbench');
    expect(reveals.map((entry) => [entry.path, entry.status])).toEqual([['/history/no-such-entry', 404]]);
    expect((await bench.workbench('revealOutbound', {})).status).toBe(400);
  });

  it('has nothing to reveal for an API call or a proxied body without expressions', async () => {
    const plain = await proxied({ pan: 'no expression here' });
    const api = (await bench.engine.history.list(100)).find((entry) => entry.path === '/tokens')!.id;
    for (const id of [plain, api]) {
      const res = await reveal(id);
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/no detokenized body to reveal/);
    }
  });

  it('renders with the vault and the access rules as they are now: a deleted token, a withdrawn permission, a deleted app', async () => {
    const id = await proxied({ pan: `{{ ${cardId} }}` });
    await bench.call('PUT', `/applications/${appId}`, {
      key: bench.managementKey,
      body: { name: 'backend', type: 'private', rules: RULES(['token:create']) },
    });
    const withdrawn = await reveal(id);
    expect(withdrawn.status).toBe(403);

    await bench.call('PUT', `/applications/${appId}`, {
      key: bench.managementKey,
      body: { name: 'backend', type: 'private', rules: RULES(['token:create', 'token:use', 'token:delete']) },
    });
    expect((await reveal(id)).body).toEqual({ detokenized_body: `{"pan":"${PAN}"}` });
    expect((await bench.call('DELETE', `/tokens/${cardId}`, { key: appKey })).status).toBe(204);
    const deleted = await reveal(id);
    expect(deleted.status).toBe(400);
    expect(deleted.body.detail).toContain(`${cardId} not found`);

    expect((await bench.call('DELETE', `/applications/${appId}`, { key: bench.managementKey })).status).toBe(204);
    const gone = await reveal(id);
    expect(gone.status).toBe(409);
    expect(gone.body.detail).toBe('The application that sent this request no longer exists');
  });
});
