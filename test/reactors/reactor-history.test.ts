import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { welcomeSchema } from '../../shared/workbench/vault-contract';
import { readAll, startServer, type TestServer } from '../proxy/support/loopback';
import { startTestEngine, tempDir, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * What a react leaves behind: its History entry and trace (detokenized values masked everywhere), the legacy
 * callback_url's delivery, and asynchronous results kept in the vault across a restart.
 */
let t: TestEngine;
let cardId: string;
let secretId: string;

const createReactor = async (code: string) => {
  const res = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'traced', code } });
  if (res.status !== 201) throw new Error(`reactor not created: ${res.text}`);
  return res.body.id as string;
};

async function resultOf(engine: TestEngine, reactorId: string, requestId: string): Promise<ApiResponse> {
  for (;;) {
    const res = await engine.call('GET', `/reactors/${reactorId}/results/${requestId}`, { key: engine.privateKey });
    if (res.status !== 200 || res.body.status !== 'pending') return res;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const entryOf = async (traceId: string) => {
  for (;;) {
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === traceId);
    if (entry) return entry;
    await new Promise((r) => setTimeout(r, 50));
  }
};

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  cardId = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: '4242424242424242' } })).body.id;
  secretId = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'open sesame' } })).body.id;
});
afterAll(() => t.stop());

describe('History of a react', () => {
  it('records the args, the code with its log lines and the result, with the detokenized card masked', async () => {
    const id = await createReactor("module.exports = async (req) => { console.log('card is ' + req.args.card + ', ' + req.args.secret); return { raw: { echoed: req.args.card, said: req.args.secret } }; };");
    const args = { card: `{{ ${cardId} }}`, secret: `{{ ${secretId} }}` };
    const res = await t.call('POST', `/reactors/${id}/react`, { key: t.privateKey, body: { args }, headers: { 'BT-TRACE-ID': 'react-trace' } });
    expect(res.body).toEqual({ raw: { echoed: '4242424242424242', said: 'open sesame' } });
    const entry = await entryOf('react-trace');
    expect(JSON.stringify(entry)).not.toContain('4242424242424242');
    expect(JSON.stringify(entry)).not.toContain('open sesame');
    const { reactor } = entry.details as { reactor: { id: string; trace: { step: string; body?: string; logs?: string[] }[] } };
    expect(reactor.id).toBe(id);
    expect(reactor.trace.map((s) => s.step)).toEqual(['args', 'code', 'result']);
    expect(reactor.trace[0].body).toBe('{"card":"XXXXXXXXXXXX4242","secret":"[redacted]"}');
    expect(reactor.trace[1].logs).toEqual(['log: card is XXXXXXXXXXXX4242, [redacted]']);
    expect(reactor.trace[2].body).toBe('{"raw":{"echoed":"XXXXXXXXXXXX4242","said":"[redacted]"}}');
  });

  it('keeps the data of the tokens the code tokenized out of the trace: the tokenize step counts them, the result shows them masked', async () => {
    const id = await createReactor("module.exports = async () => ({ raw: 'ok', tokenize: { ssn: { type: 'social_security_number', data: '123-45-6789' }, note: { type: 'token', data: 'made by the code' } } });");
    const res = await t.call('POST', `/reactors/${id}/react`, { key: t.privateKey, body: { args: {} }, headers: { 'BT-TRACE-ID': 'tokenize-trace' } });
    expect(res.status, res.text).toBe(200);
    const entry = await entryOf('tokenize-trace');
    expect(JSON.stringify(entry)).not.toContain('123-45-6789');
    expect(JSON.stringify(entry)).not.toContain('made by the code');
    const { reactor } = entry.details as { reactor: { trace: { step: string; note?: string; body?: string }[] } };
    expect(reactor.trace.map((s) => s.step)).toEqual(['args', 'code', 'tokenize', 'result']);
    expect(reactor.trace[2].note).toBe('2 token(s)');
    expect(reactor.trace[3].body).toContain('XXX-XX-6789');
  });

  it('records an asynchronous react once its run ends, with its request id', async () => {
    const id = await createReactor('module.exports = async (req) => ({ raw: req.args });');
    const res = await t.call('POST', `/reactors/${id}/react-async`, { key: t.privateKey, body: { args: { n: 2 } }, headers: { 'BT-TRACE-ID': 'async-trace' } });
    expect(res.status).toBe(202);
    const entry = await entryOf('async-trace');
    expect(entry.status).toBe(202);
    const { reactor } = entry.details as { reactor: { async_request_id: string; trace: { step: string; note?: string }[] } };
    expect(reactor.async_request_id).toBe(res.body.asyncReactorRequestId);
    expect(reactor.trace.at(-1)).toMatchObject({ step: 'result', note: '200' });
  });
});

describe('the live feed', () => {
  it('tells the workbench of each react as it is recorded, with its reactor and trace', async () => {
    const id = await createReactor('module.exports = async () => ({ raw: 1 });');
    const heard = new Promise<unknown>((resolve) => {
      const listener = (entry: { details?: Record<string, unknown> }) => {
        if (!entry.details?.reactor) return;
        t.engine.events.off('request', listener);
        resolve(entry.details.reactor);
      };
      t.engine.events.on('request', listener);
    });
    await t.call('POST', `/reactors/${id}/react`, { key: t.privateKey, body: { args: {} } });
    expect(await heard).toMatchObject({ id, trace: [{ step: 'args' }, { step: 'code' }, { step: 'result', note: '200' }] });
  });
});

describe('callback_url (legacy)', () => {
  let receiver: TestServer;
  const received: { path: string; body: unknown }[] = [];
  beforeAll(async () => {
    receiver = await startServer(async (req, res) => {
      received.push({ path: req.url ?? '', body: JSON.parse((await readAll(req)).toString('utf8')) as unknown });
      res.writeHead(204).end();
    });
  });
  afterAll(() => receiver.close());

  it('answers as react-async and posts the result to the URL', async () => {
    const id = await createReactor('module.exports = async (req) => ({ raw: req.args });');
    const res = await t.call('POST', `/reactors/${id}/react`, { key: t.privateKey, body: { args: { n: 3 }, callback_url: `${receiver.url}/done` } });
    expect(res.status).toBe(202);
    expect((await resultOf(t, id, res.body.asyncReactorRequestId)).body).toEqual({ raw: { n: 3 } });
    while (received.length === 0) await new Promise((r) => setTimeout(r, 50));
    expect(received).toEqual([{ path: '/done', body: { raw: { n: 3 } } }]);
  });

  it('drops a callback_url the destination policy refuses, at once, with a line in the log', async () => {
    const lines: string[] = [];
    const strict = await startTestEngine({ inMemory: true, denyPrivateDestinations: true, log: (line) => lines.push(line) });
    try {
      const id = (await strict.call('POST', '/reactors', { key: strict.managementKey, body: { name: 'called back', code: 'module.exports = async (req) => ({ raw: req.args });' } })).body.id;
      for (const [url, reason] of [[`${receiver.url}/refused`, /private destinations are denied/], [`${strict.url}/own`, /Tokenbench's own port/]] as const) {
        const res = await strict.call('POST', `/reactors/${id}/react`, { key: strict.privateKey, body: { args: { n: 1 }, callback_url: url } });
        expect(res.status).toBe(202);
        expect((await resultOf(strict, id, res.body.asyncReactorRequestId)).body).toEqual({ raw: { n: 1 } });
        const origin = new URL(url).origin;
        for (let waited = 0; waited < 5000 && !lines.some((l) => l.includes(origin)); waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(lines.find((l) => l.includes(origin))).toMatch(new RegExp(`Reactor callback to ${origin}: refused by the destination policy, not sent \\(.*${reason.source}`));
      }
      expect(received.filter((r) => r.path === '/refused')).toEqual([]);
    } finally {
      await strict.stop();
    }
  });

  it('tries a failing callback 11 times, each wait twice the one before, then gives up with a line in the log', { timeout: 20_000 }, async () => {
    const lines: string[] = [];
    const tries: number[] = [];
    const failing = await startServer((_req, res) => {
      tries.push(Date.now());
      res.writeHead(500).end();
    });
    const quick = await startTestEngine({ inMemory: true, reactorCallbackFirstRetryMs: 2, log: (line) => lines.push(line) });
    try {
      const id = (await quick.call('POST', '/reactors', { key: quick.managementKey, body: { name: 'called back', code: 'module.exports = async () => ({ raw: 1 });' } })).body.id;
      expect((await quick.call('POST', `/reactors/${id}/react`, { key: quick.privateKey, body: { args: {}, callback_url: `${failing.url}/hook` } })).status).toBe(202);
      for (let waited = 0; waited < 10_000 && !lines.some((l) => l.includes('given up')); waited += 50) await new Promise((r) => setTimeout(r, 50));
      expect(lines.find((l) => l.includes('given up'))).toBe(`Reactor callback to ${failing.url}: given up after 11 tries (status 500)`);
      expect(tries).toHaveLength(11);
      // The last wait (2 ms × 2⁹) is far longer than the first: the back-off doubles.
      expect(tries[10] - tries[9]).toBeGreaterThan(tries[1] - tries[0]);
    } finally {
      await quick.stop();
      await failing.close();
    }
  });

  it('refuses a callback_url that is no URL (400) before running anything', async () => {
    const id = await createReactor('module.exports = async () => ({})');
    const res = await t.call('POST', `/reactors/${id}/react`, { key: t.privateKey, body: { args: {}, callbackUrl: 'not a url' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveProperty('callback_url');
  });
});

describe('results across a restart', () => {
  it('keeps a finished result, and answers a run its engine never finished as a failure, never pending', async () => {
    const dataDir = tempDir();
    let engine = await startTestEngine({ dataDir });
    const quick = (await engine.call('POST', '/reactors', { key: engine.managementKey, body: { name: 'kept', code: 'module.exports = async (req) => ({ raw: req.args });' } })).body.id;
    const done = (await engine.call('POST', `/reactors/${quick}/react-async`, { key: engine.privateKey, body: { args: { kept: true } } })).body.asyncReactorRequestId;
    expect((await resultOf(engine, quick, done)).body).toEqual({ raw: { kept: true } });
    const { privateKey, managementKey } = engine;
    await engine.engine.stop();
    // A run the process died in (a crash, a kill) leaves its row pending: written as such here.
    const lostId = '6d1f1c4e-8a43-4f43-9b1e-2f2d3c4b5a69';
    const db = new Database(join(dataDir, DATABASE_FILE));
    const later = new Date(Date.now() + 3_600_000).toISOString();
    db.prepare("INSERT INTO reactor_results (id, reactor_id, state, created_at, expires_at) VALUES (?, ?, 'pending', ?, ?)").run(lostId, quick, new Date().toISOString(), later);
    db.close();

    engine = { ...(await startTestEngine({ dataDir })), privateKey, managementKey };
    try {
      expect((await resultOf(engine, quick, done)).body).toEqual({ raw: { kept: true } });
      const lost = await resultOf(engine, quick, lostId);
      expect(lost.status).toBe(500);
      expect(lost.body.errors.error[0]).toMatch(/engine stopped before the reactor finished/);
    } finally {
      await engine.engine.stop();
    }
  });
});

describe('wiping the vault', () => {
  it('takes every reactor with it', async () => {
    const engine = await startTestEngine({ inMemory: true });
    try {
      await engine.call('POST', '/reactors', { key: engine.managementKey, body: { name: 'wiped', code: 'module.exports = async () => ({})' } });
      await engine.engine.workbench.wipeVault({ confirm: 'wipe' });
      const { keys } = welcomeSchema.parse(await engine.engine.workbench.takeWelcome({}));
      expect((await engine.call('GET', '/reactors', { key: keys!.management.key })).body.data).toEqual([]);
    } finally {
      await engine.stop();
    }
  });
});
