import Database from 'better-sqlite3';
import { copyFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { HISTORY_FILE } from '../../electron/engine/history/history-store';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { SQLITE_COMPANION_SUFFIXES } from '../../electron/engine/storage/private-files';
import { freePort } from '../support/free-port';
import { tempDir } from '../support/test-engine';
import { SeededRandom } from '../support/seeded-random';
import { startServe, type ServeProcess } from './serve-process';
import { VaultLedger, type ReadTokens, type TryCommit } from './vault-ledger';
import { ProxiedCalls, ValuePool, Workload } from './workload';

/**
 * kill -9 while concurrent writers, transactions and proxy calls run (at a random moment, or on every other cycle the
 * moment a commit is in flight), restart on the same data dir, and check that nothing acknowledged is lost, nothing is
 * half applied, nothing rolled back or expired shows, and SQLite is intact; and that history, which writes in batches
 * behind the answers, lost at most the last entries of each proxy caller and is intact too. CRASH_CYCLES and
 * CRASH_SEED replay or extend a run.
 */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 10);
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKERS = 8;
const PROXY_WORKERS = 2;
const TTL_SECONDS = 3;
const KEY = 'key_test_crash_harness_0123456789abcdef';

const dataDir = tempDir('tokenbench-crash-');
let server: ServeProcess | null = null;
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

function writeSeed(): string {
  const file = join(dataDir, 'seed.json');
  const everything = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
  const app = { name: 'crash harness', type: 'private', key: KEY, rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: everything }] };
  writeFileSync(file, JSON.stringify({ applications: [app] }));
  return file;
}

function reader(url: string): ReadTokens {
  return async (ids) => {
    const found = new Map<string, unknown>();
    for (let at = 0; at < ids.length; at += 100) {
      const query = ids.slice(at, at + 100).map((id) => `id=${encodeURIComponent(id)}`).join('&');
      const res = await request(`${url}/tokens?size=100&${query}`, { headers: { 'BT-API-KEY': KEY } });
      const body = (await res.body.json()) as { data: { id: string; data: unknown }[] };
      expect(res.statusCode).toBe(200);
      for (const token of body.data) found.set(token.id, token.data);
    }
    return found;
  };
}

function committer(url: string): TryCommit {
  return async (id) => {
    const res = await request(`${url}/transactions/${id}/commit`, { method: 'POST', headers: { 'BT-API-KEY': KEY } });
    const text = await res.body.text();
    return { status: res.statusCode, detail: text ? ((JSON.parse(text) as { detail?: string }).detail ?? '') : '' };
  };
}

/**
 * Reads one of the killed service's databases as its next start will find it: a copy of the file with what SQLite keeps
 * beside it (the vault's WAL and its index, history's rollback journal, which a kill mid-batch leaves to be rolled
 * back), opened for writing so that SQLite can recover them (a read-only connection cannot when the kill left the
 * index stale), while the service's own files stay as the kill left them.
 */
function readKilled<T>(file: string, read: (db: Database.Database) => T): T {
  const copy = tempDir('tokenbench-killed-');
  for (const suffix of ['', ...SQLITE_COMPANION_SUFFIXES]) {
    if (existsSync(join(dataDir, file + suffix))) copyFileSync(join(dataDir, file + suffix), join(copy, file + suffix));
  }
  const db = new Database(join(copy, file), { fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
    rmSync(copy, { recursive: true, force: true });
  }
}
const integrityCheck = (file = DATABASE_FILE) => readKilled(file, (db) => db.pragma('integrity_check', { simple: true }));

/** The answered proxy calls missing from history; each caller may lose only its last ones, in a row. */
function lostFromHistory(proxied: ProxiedCalls): { lost: number; gaps: string[] } {
  const kept = new Set(readKilled(HISTORY_FILE, (db) => db.prepare('SELECT entry FROM request_log').pluck().all() as string[]).map((entry) => (JSON.parse(entry) as { path: string }).path));
  let lost = 0;
  const gaps: string[] = [];
  for (const calls of proxied.byWorker) {
    const firstLost = calls.findIndex((path) => !kept.has(path));
    if (firstLost === -1) continue;
    lost += calls.length - firstLost;
    const keptAfter = calls.slice(firstLost).filter((path) => kept.has(path));
    if (keptAfter.length > 0) gaps.push(`${calls[firstLost]} is lost but the later ${keptAfter[0]} is kept`);
  }
  return { lost, gaps };
}

it(`survives ${CYCLES} kill -9 cycles with nothing lost or half applied`, { timeout: 180_000 }, async () => {
  console.log(`crash harness: seed ${SEED} (CRASH_SEED=${SEED} replays the choices), ${CYCLES} cycles`);
  const random = new SeededRandom(SEED);
  const values = new ValuePool(random);
  const ledger = new VaultLedger();
  const seedFile = writeSeed();
  const echoPort = await freePort();
  const start = () => startServe({ dataDir, seedFile, transactionTtlSeconds: TTL_SECONDS, echoPort });
  const history = { answered: 0, lost: 0 };

  for (let cycle = 1; cycle <= CYCLES + 1; cycle += 1) {
    server = await start();
    const last = cycle > CYCLES;
    const problems = await ledger.verify(reader(server.url), committer(server.url), last);
    expect(problems, `after the kill of cycle ${cycle - 1} (seed ${SEED})\n${server.stderr()}`).toEqual([]);
    if (last) break;

    const proxied = new ProxiedCalls();
    // Every other cycle ends at the first commit sent after a short while, within a few ms, its answer still to come.
    const atCommit = cycle % 2 === 0;
    let commitSent: (() => void) | null = null;
    const workload = new Workload({
      url: server.url, key: KEY, ledger, random, values, workers: WORKERS, problems,
      proxy: { workers: PROXY_WORKERS, destination: server.echoUrl!, proxied },
      onCommitSent: () => commitSent?.(),
    });
    const running = workload.run();
    await sleep(random.int(150, 1200));
    if (atCommit) {
      // Bounded: workers that all stopped on a problem send no commit, and the problem is reported below.
      await Promise.race([new Promise<void>((resolve) => (commitSent = resolve)), sleep(2_000)]);
      await sleep(random.int(0, 3));
    } else {
      // On a loaded machine short cycles can all end before any commit is answered, and a run with none would not
      // check what it claims: the first cycles wait for one (bounded), so every run has a committed transaction.
      for (let waited = 0; ledger.stats.committed === 0 && waited < 10_000; waited += 50) await sleep(50);
    }
    await server.kill();
    await running;
    expect(problems, `answers during cycle ${cycle} (seed ${SEED})\n${server.stderr()}`).toEqual([]);
    expect(integrityCheck(), `integrity after the kill of cycle ${cycle}`).toBe('ok');
    expect(integrityCheck(HISTORY_FILE), `history's integrity after the kill of cycle ${cycle}`).toBe('ok');
    const { lost, gaps } = lostFromHistory(proxied);
    expect(gaps, `history after the kill of cycle ${cycle} (seed ${SEED})`).toEqual([]);
    history.answered += proxied.count;
    history.lost += lost;
  }
  await server!.kill();
  server = null;
  const s = ledger.stats;
  console.log(
    `crash harness: ${CYCLES} cycles passed (seed ${SEED}): ${s.acknowledged} acknowledged write groups ` +
      `(${s.committed} committed transactions), ${s.unanswered} unanswered at a kill, ` +
      `${s.notCommitted} transactions rolled back, left open or expired; ${history.answered} answered proxy calls, ` +
      `the last ${history.lost} of them not in history`,
  );
  // The run exercised what it claims to check.
  expect(s.committed).toBeGreaterThan(0);
  expect(s.notCommitted).toBeGreaterThan(0);
  expect(s.unanswered).toBeGreaterThan(0);
  expect(history.answered).toBeGreaterThan(history.lost);
});
