import Database from 'better-sqlite3';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { tempDir } from '../support/test-engine';
import { SeededRandom } from '../support/seeded-random';
import { startServe, type ServeProcess } from './serve-process';
import { VaultLedger, type ReadTokens, type TryCommit } from './vault-ledger';
import { ValuePool, Workload } from './workload';

/**
 * kill -9 at a random moment while concurrent writers and transactions run, restart on the same data dir, and check
 * that nothing acknowledged is lost, nothing is half applied, nothing rolled back or expired shows, and SQLite is
 * intact. CRASH_CYCLES and CRASH_SEED replay or extend a run.
 */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 10);
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKERS = 8;
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

/** Opens the killed service's database read-only, as nothing else would touch it. */
function integrityCheck(): unknown {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
  try {
    return db.pragma('integrity_check', { simple: true });
  } finally {
    db.close();
  }
}

it(`survives ${CYCLES} kill -9 cycles with nothing lost or half applied`, { timeout: 110_000 }, async () => {
  console.log(`crash harness: seed ${SEED} (CRASH_SEED=${SEED} replays the choices), ${CYCLES} cycles`);
  const random = new SeededRandom(SEED);
  const values = new ValuePool(random);
  const ledger = new VaultLedger();
  const seedFile = writeSeed();
  const start = () => startServe({ dataDir, seedFile, transactionTtlSeconds: TTL_SECONDS });

  for (let cycle = 1; cycle <= CYCLES + 1; cycle += 1) {
    server = await start();
    const last = cycle > CYCLES;
    const problems = await ledger.verify(reader(server.url), committer(server.url), last);
    expect(problems, `after the kill of cycle ${cycle - 1} (seed ${SEED})\n${server.stderr()}`).toEqual([]);
    if (last) break;

    const workload = new Workload({ url: server.url, key: KEY, ledger, random, values, workers: WORKERS, problems });
    const running = workload.run();
    await sleep(random.int(150, 1200));
    await server.kill();
    await running;
    expect(problems, `answers during cycle ${cycle} (seed ${SEED})\n${server.stderr()}`).toEqual([]);
    expect(integrityCheck(), `integrity after the kill of cycle ${cycle}`).toBe('ok');
  }
  await server!.kill();
  server = null;
  const s = ledger.stats;
  console.log(
    `crash harness: ${CYCLES} cycles passed (seed ${SEED}): ${s.acknowledged} acknowledged write groups ` +
      `(${s.committed} committed transactions), ${s.unanswered} unanswered at a kill, ` +
      `${s.notCommitted} transactions rolled back, left open or expired`,
  );
  // The run exercised what it claims to check.
  expect(s.committed).toBeGreaterThan(0);
  expect(s.notCommitted).toBeGreaterThan(0);
  expect(s.unanswered).toBeGreaterThan(0);
});
