import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../electron/engine/history/request-log';
import { HISTORY_FILE, HISTORY_SCHEMA_VERSION, HistoryStore } from '../../electron/engine/history/history-store';
import { startEngine } from '../../electron/engine';
import { BIN_SERVE_COMMAND } from '../support/serve-process';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

const running: TestEngine[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) await t.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = tempDir('tokenbench-history-');
  dirs.push(dir);
  return dir;
}

async function start(options: Parameters<typeof startTestEngine>[0] = {}): Promise<TestEngine> {
  const t = await startTestEngine(options);
  running.push(t);
  return t;
}

async function stop(t: TestEngine): Promise<void> {
  running.splice(running.indexOf(t), 1);
  await t.stop();
}

/** Requests that are recorded whatever the key: each a 404 on its own path. */
async function requestPaths(t: TestEngine, paths: string[]): Promise<void> {
  for (const path of paths) expect((await t.call('GET', path, { key: t.privateKey })).status).toBe(404);
}

const pathsOf = (entries: RequestLogEntry[]) => entries.map((e) => e.path);

/** The entries in a data dir's history file, read with a store of its own (the engine is stopped). */
function storedPaths(dir: string): string[] {
  const store = HistoryStore.open({ dataDir: dir, limit: 1_000_000, log: () => undefined });
  try {
    return store.list(1_000_000).map((json) => JSON.parse(json).path);
  } finally {
    store.close();
  }
}

describe('the request history of a running engine', () => {
  it('answers a list right after the requests it holds, without waiting for a batch', async () => {
    const t = await start({ inMemory: true });
    await requestPaths(t, ['/one', '/two']);
    expect(pathsOf(await t.engine.history.list(2))).toEqual(['/two', '/one']);
  });

  it('pages back from an entry id and finds one entry by id', async () => {
    const t = await start({ inMemory: true });
    await requestPaths(t, ['/a', '/b', '/c', '/d', '/e']);
    const first = await t.engine.history.list(2);
    expect(pathsOf(first)).toEqual(['/e', '/d']);
    const second = await t.engine.history.list(2, first[1].id);
    expect(pathsOf(second)).toEqual(['/c', '/b']);
    expect(pathsOf(await t.engine.history.list(2, second[1].id))).toEqual(['/a']);
    expect(await t.engine.history.get(second[0].id)).toEqual(second[0]);
    expect(await t.engine.history.get('no-such-entry')).toBeUndefined();
  });

  it('keeps the newest entries up to the history limit, the oldest going first', async () => {
    const t = await start({ dataDir: dataDir(), historyLimit: 3 });
    await requestPaths(t, ['/1', '/2', '/3', '/4', '/5']);
    expect(pathsOf(await t.engine.history.list(10))).toEqual(['/5', '/4', '/3']);
  });

  it('keeps its entries in history.sqlite across a restart on the same data dir', async () => {
    const dir = dataDir();
    const first = await start({ dataDir: dir });
    await requestPaths(first, ['/before-restart']);
    await stop(first);
    const second = await start({ dataDir: dir });
    await second.call('GET', '/after-restart');
    expect(pathsOf(await second.engine.history.list(10))).toEqual(['/after-restart', '/before-restart']);
    expect(readdirSync(dir)).toContain(HISTORY_FILE);
  });

  it('keeps an entry it cannot serialize without its body and details, instead of stopping the service', async () => {
    const t = await start({ inMemory: true });
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(() =>
      t.engine.history.record({ kind: 'api', method: 'POST', path: '/deep', status: 400, duration_ms: 1, application_id: null, trace_id: null, request_headers: [], request_body: deep, details: { deep } }),
    ).not.toThrow();
    const [entry] = await t.engine.history.list(1);
    expect(entry).toMatchObject({ path: '/deep', request_body: '[not kept: it could not be serialized]' });
    expect((await t.call('GET', '/tokens', { key: t.privateKey })).status).toBe(200);
    await stop(t);
  });

  it('writes every entry still queued when the engine stops', async () => {
    const dir = dataDir();
    const t = await start({ dataDir: dir });
    // Recorded in one go, so most of them are still queued on the main thread when stop begins.
    for (let i = 0; i < 500; i++) {
      t.engine.history.record({ kind: 'api', method: 'GET', path: `/queued/${i}`, status: 404, duration_ms: 1, application_id: null, trace_id: null, request_headers: [] });
    }
    await stop(t);
    const paths = storedPaths(dir);
    expect(paths).toHaveLength(500);
    expect(paths[0]).toBe('/queued/499');
  });

  it('works in memory, and the CLI run in memory from another folder leaves no file behind', async () => {
    const t = await start({ inMemory: true });
    await requestPaths(t, ['/in-memory']);
    expect(pathsOf(await t.engine.history.list(1))).toEqual(['/in-memory']);
    expect(existsSync(HISTORY_FILE)).toBe(false);

    // The bin runs from source under tsx: its worker must start whatever the cwd.
    const cwd = dataDir();
    const child = spawn(BIN_SERVE_COMMAND[0], [...BIN_SERVE_COMMAND.slice(1), '--in-memory', '--port', '0', '--echo-port', '0'], { cwd });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const found = /serving (http:\/\/\S+)/.exec(output)?.[1];
        if (found) resolve(found);
      });
      exited.then(() => reject(new Error(`serve exited before it was ready:\n${output}`)));
    });
    expect((await fetch(`${url}/tokens`)).status).toBe(401);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('live request events', () => {
  it('reach each listener for the requests made while it listens, also after all listeners left and one came back', async () => {
    const t = await start();
    await requestPaths(t, ['/before']);
    const first: string[] = [];
    const second: string[] = [];
    const onFirst = (entry: RequestLogEntry) => first.push(entry.path);
    const onSecond = (entry: RequestLogEntry) => second.push(entry.path);
    t.engine.events.on('request', onFirst);
    await requestPaths(t, ['/one']);
    t.engine.events.on('request', onSecond);
    await requestPaths(t, ['/both']);
    t.engine.events.off('request', onFirst);
    t.engine.events.off('request', onSecond);
    await requestPaths(t, ['/nobody']);
    t.engine.events.on('request', onSecond);
    await requestPaths(t, ['/again']);
    expect(first).toEqual(['/one', '/both']);
    expect(second).toEqual(['/both', '/again']);
    // Every request is in the history whoever listened.
    expect(pathsOf(await t.engine.history.list(10)).reverse()).toEqual(['/before', '/one', '/both', '/nobody', '/again']);
  });
});

describe('a history file the engine cannot use as it is', () => {
  it('refuses to start on a history from a newer schema, saying which file and why', async () => {
    const dir = dataDir();
    const newer = new Database(join(dir, HISTORY_FILE));
    newer.pragma(`user_version = ${HISTORY_SCHEMA_VERSION + 1}`);
    newer.close();
    await expect(startEngine({ dataDir: dir, port: 0, echoPort: null, log: () => undefined })).rejects.toThrow(
      `The request history could not start: ${join(dir, HISTORY_FILE)} holds request history schema version ${HISTORY_SCHEMA_VERSION + 1}, newer than this Tokenbench reads`,
    );
    // Nothing was left open or running: once the file is gone, the same data dir starts.
    rmSync(join(dir, HISTORY_FILE));
    const t = await start({ dataDir: dir });
    await requestPaths(t, ['/after-removal']);
    expect(pathsOf(await t.engine.history.list(1))).toEqual(['/after-removal']);
  });

  it('starts on an unreadable history file, moving it aside and saying so once', async () => {
    const dir = dataDir();
    writeFileSync(join(dir, HISTORY_FILE), 'not a database '.repeat(200));
    const lines: string[] = [];
    const t = await start({ dataDir: dir, log: (line) => lines.push(line) });
    expect(lines).toEqual([expect.stringContaining(`${join(dir, HISTORY_FILE)} could not be read (SQLITE_NOTADB): moved it to`)]);
    expect(readdirSync(dir).filter((f) => f.startsWith(`${HISTORY_FILE}.unreadable-`))).toHaveLength(1);
    await requestPaths(t, ['/fresh']);
    expect(pathsOf(await t.engine.history.list(10))).toEqual(['/fresh']);
  });

  it('says once when its worker stops, keeps the live events going, and then refuses reads', async () => {
    const dir = dataDir();
    const lines: string[] = [];
    const t = await start({ dataDir: dir, log: (line) => lines.push(line) });
    // Another program holds the history's write lock: the worker's next write times out (SQLite's busy timeout).
    const holder = new Database(join(dir, HISTORY_FILE));
    holder.exec('BEGIN EXCLUSIVE');
    try {
      await requestPaths(t, ['/while-locked']);
      await expect(t.engine.history.flush()).rejects.toThrow('The request history is unavailable: its worker stopped');
      expect(lines).toEqual([expect.stringMatching(/^Request history stopped: database is locked \(SQLITE_BUSY\)\. New requests are no longer saved/)]);

      const live: string[] = [];
      t.engine.events.on('request', (entry) => live.push(entry.path));
      await requestPaths(t, ['/after-the-worker']);
      expect(live).toEqual(['/after-the-worker']);
      await expect(t.engine.history.list(10)).rejects.toThrow('The request history is unavailable');
      await expect(t.engine.history.get('any')).rejects.toThrow('The request history is unavailable');
      await stop(t);
      expect(lines).toHaveLength(1);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});
