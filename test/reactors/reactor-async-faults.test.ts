import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * An asynchronous react whose run fails inside the engine rather than in its code: the reactor deleted while it runs,
 * the vault refusing a write the run needs (its tokenize, its result). Each time the result a client polls says what
 * happened, History's entry says it too, and no result stays pending. The vault's refusals are real: a trigger in the
 * engine's SQLite file, added by a second connection.
 */
let t: TestEngine;
let vault: Database.Database;
const lines: string[] = [];

const createReactor = async (code: string) => {
  const res = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'faulty', code } });
  if (res.status !== 201) throw new Error(`reactor not created: ${res.text}`);
  return res.body.id as string;
};

/** Polls the result until it is no longer pending; a result pending past the test's timeout fails it. */
async function settledResult(reactorId: string, requestId: string): Promise<ApiResponse> {
  for (;;) {
    const res = await t.call('GET', `/reactors/${reactorId}/results/${requestId}`, { key: t.privateKey });
    if (res.status !== 200 || res.body.status !== 'pending') return res;
    await new Promise((r) => setTimeout(r, 50));
  }
}

type ReactorEntry = { status: number; details: { reactor: { async_request_id: string; trace: { step: string; note?: string }[] } } };
async function entryOf(traceId: string): Promise<ReactorEntry> {
  for (;;) {
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === traceId);
    if (entry) return entry as unknown as ReactorEntry;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const reactAsync = async (id: string, traceId: string) => {
  const res = await t.call('POST', `/reactors/${id}/react-async`, { key: t.privateKey, body: { args: {} }, headers: { 'BT-TRACE-ID': traceId } });
  expect(res.status, res.text).toBe(202);
  return res.body.asyncReactorRequestId as string;
};

const refuse = (table: string, event: 'INSERT' | 'UPDATE') =>
  vault.exec(`CREATE TRIGGER refuse_${table} BEFORE ${event} ON ${table} BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);

beforeAll(async () => {
  t = await startTestEngine({ log: (line) => lines.push(line) });
  vault = new Database(join(t.dataDir!, DATABASE_FILE));
});
afterEach(() => {
  for (const { name } of vault.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'refuse_%'").all() as { name: string }[]) vault.exec(`DROP TRIGGER ${name}`);
});
afterAll(async () => {
  vault.close();
  await t.stop();
});

describe('an asynchronous react failing inside the engine', () => {
  it('answers a run whose reactor was deleted while it ran with a 404 saying so, and History keeps the run', async () => {
    const id = await createReactor('module.exports = async () => { await new Promise((r) => setTimeout(r, 500)); return { raw: "ran" }; };');
    const requestId = await reactAsync(id, 'deleted-mid-run');
    expect((await t.call('DELETE', `/reactors/${id}`, { key: t.managementKey })).status).toBe(204);
    const entry = await entryOf('deleted-mid-run');
    expect(entry.details.reactor.async_request_id).toBe(requestId);
    expect(entry.details.reactor.trace.at(-1)).toMatchObject({ step: 'result', note: '200' });
    const res = await settledResult(id, requestId);
    expect(res.status).toBe(404);
    expect(res.body.detail).toMatch(new RegExp(`Reactor ${id} .*not found`));
  });

  it('answers a run whose tokenize the vault refused with a 500, and History says the engine failed', async () => {
    const id = await createReactor("module.exports = async () => ({ raw: 'ran', tokenize: { kept: { type: 'token', data: 'secret' } } });");
    refuse('tokens', 'INSERT');
    const requestId = await reactAsync(id, 'tokenize-refused');
    const res = await settledResult(id, requestId);
    expect(res.status).toBe(500);
    expect(res.body.detail).toMatch(/failed to run the reactor/);
    const entry = await entryOf('tokenize-refused');
    expect(entry.details.reactor.trace.at(-1)).toMatchObject({ step: 'result', note: expect.stringMatching(/^500: the engine failed/) });
    expect(lines.join('\n')).toMatch(/refused by the test/);
  });

  it('answers a run whose result the vault refused to keep with a 500 saying so, never pending, and History says it', { timeout: 10_000 }, async () => {
    const id = await createReactor("module.exports = async () => ({ raw: 'ran' });");
    refuse('reactor_results', 'UPDATE');
    const requestId = await reactAsync(id, 'result-refused');
    const res = await settledResult(id, requestId);
    expect(res.status).toBe(500);
    expect(res.body.errors.error[0]).toMatch(/could not keep the reactor's result: invoke it again/);
    const entry = await entryOf('result-refused');
    expect(entry.details.reactor.trace.at(-1)).toMatchObject({ step: 'result', note: expect.stringMatching(/^200; not kept/) });
  });
});
