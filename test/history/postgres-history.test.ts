// Two replicas' histories over one PostgreSQL database: each replica's RequestLog (its own worker, its own pool)
// writes there, and History and `GET /logs` read there, so each replica sees every replica's requests.
import pg from 'pg';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { historyFilterSchema } from '../../shared/workbench/history-filter';
import { idTimePrefix } from '../../electron/engine/history/entry-id';
import { HISTORY_CHANGES } from '../../electron/engine/history/history-backend';
import type { StoredEntry } from '../../electron/engine/history/history-store';
import { PostgresHistory } from '../../electron/engine/history/postgres-history';
import { HISTORY_LEDGER, HISTORY_POSTGRES_MIGRATIONS } from '../../electron/engine/history/postgres-history-schema';
import { RequestLog, type NewRequestLogEntry } from '../../electron/engine/history/request-log';
import type { Activity } from '../../electron/engine/logs/entity-activity';
import type { StoredLine } from '../../electron/engine/logs/log-store';
import { migratePostgres } from '../../electron/engine/storage/postgres/migrate';
import { CHANGES_CHANNEL } from '../../electron/engine/storage/postgres/unit-driver';
import { describePostgres, freshDatabase } from '../support/postgres-suite';

const CARD = '4111 1111 1111 1111';

let url: string;
let replicas: RequestLog[] = [];
let admin: pg.Client | null = null;

const start = async (limit = 100, origin?: string) => {
  const log = await RequestLog.start({ dataDir: null, limit, databaseUrl: url, origin, log: () => undefined });
  replicas.push(log);
  return log;
};

beforeEach(async () => {
  url = await freshDatabase('history');
});
afterEach(async () => {
  await Promise.all(replicas.map((log) => log.close()));
  replicas = [];
  await admin?.end();
  admin = null;
});

function draft(path: string, more: Partial<NewRequestLogEntry> = {}): NewRequestLogEntry {
  return { kind: 'api', method: 'GET', path, status: 200, duration_ms: 1, application_id: null, trace_id: null, request_headers: [], ...more };
}

const activity = (entityId: string, entityType: Activity['entity_type'] = 'token'): Activity => ({
  actor_id: 'app-1',
  entity_type: entityType,
  entity_id: entityId,
  operation: 'read',
  message: `Read ${entityId}`,
});

/** Records each path on its replica, one after another, each written before the next is recorded. */
async function recordInTurn(steps: [RequestLog, NewRequestLogEntry][]): Promise<void> {
  for (const [log, entry] of steps) {
    log.record(entry);
    await log.flush();
  }
}

const paths = (entries: { path: string }[]) => entries.map((entry) => entry.path);

const DAY = 24 * 60 * 60 * 1000;
const stored = (id: string): StoredEntry => [id, JSON.stringify({ id, path: `/${id}` }), null];

/** How many of the database's sessions wait for a lock. */
const waiting = async () =>
  (
    await admin!.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    )
  ).rows[0].n;

describePostgres('history over PostgreSQL, from two replicas', () => {
  it('each replica lists, pages, picks, gets and filters both replicas’ entries, newest first', async () => {
    const [a, b] = [await start(), await start()];
    const body = Buffer.from(`{"card":"${CARD}"}`);
    await recordInTurn([
      [a, draft('/a/1')],
      [
        b,
        draft('/b/1', {
          kind: 'proxy',
          method: 'POST',
          status: 502,
          raw_body: { bytes: body.length, utf8: true, kept: body },
          answer_text: 'the answer',
          outbound_text: `sent ${CARD}`,
          details: { response: { body: { bytes: 10 } }, outbound: { detokenized_body: null } },
        }),
      ],
      [a, draft('/a/2', { status: 404 })],
    ]);
    for (const replica of [a, b]) {
      const all = await replica.list(10);
      expect(paths(all)).toEqual(['/a/2', '/b/1', '/a/1']);
      const first = await replica.page(2, Infinity);
      expect(paths(first.entries)).toEqual(['/a/2', '/b/1']);
      expect(first.next).toBe(all[1].id);
      const second = await replica.page(2, Infinity, first.next!);
      expect({ paths: paths(second.entries), next: second.next }).toEqual({ paths: ['/a/1'], next: null });
      expect(paths(await replica.list(10, all[0].id))).toEqual(['/b/1', '/a/1']);
      // A page ends once its JSON reaches the budget, past its first entry.
      expect(paths((await replica.page(10, 1)).entries)).toEqual(['/a/2']);
      expect(paths((await replica.pick([all[2].id, 'unknown', all[0].id], Infinity)).entries)).toEqual(['/a/1', '/a/2']);

      const proxied = (await replica.get(all[1].id)) as unknown as {
        request_body: { bytes: number; text: string };
        details: { response: { body: { text: string } }; outbound: { detokenized_body: string } };
      };
      expect(proxied.request_body).toEqual({ bytes: body.length, text: '{"card":"XXXX XXXX XXXX 1111"}' });
      expect(proxied.details.response.body.text).toBe('the answer');
      expect(proxied.details.outbound.detokenized_body).toBe('sent XXXX XXXX XXXX 1111');
      expect(await replica.get('unknown')).toBeUndefined();

      const failed = historyFilterSchema.parse({ view: 'failed' });
      expect(paths(await replica.list(10, undefined, failed))).toEqual(['/a/2', '/b/1']);
      expect(paths((await replica.page(1, Infinity, undefined, historyFilterSchema.parse({ text: '/b/' }))).entries)).toEqual(['/b/1']);
    }
    // The card number never reached the database, in any column.
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM request_log WHERE entry LIKE $1 OR encode(body, 'escape') LIKE $1 OR outbound LIKE $1`,
      [`%${CARD}%`],
    );
    expect(rows).toEqual([{ n: 0 }]);
  });

  it("another replica's entries named in its notices are heard in full, oldest first, however many were written before the read", async () => {
    const [a, b] = [await start(1000, 'replica-a'), await start(1000)];
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const notices: string[][] = [];
    admin.on('notification', ({ payload = '' }) => {
      const [origin, channel, ids] = payload.split(' ');
      if (origin === 'replica-a' && channel === HISTORY_CHANGES) notices.push(ids.split(','));
    });
    await admin.query(`LISTEN ${CHANGES_CHANNEL}`);
    const heard: string[] = [];
    b.on('entry', (entry) => heard.push(entry.path));
    // A burst of 250 in one batch, then 250 more written before B reads the burst's notices (B lagging behind A).
    const written = [...Array.from({ length: 250 }, (_, i) => `/burst/${i}`), ...Array.from({ length: 250 }, (_, i) => `/after/${i}`)];
    for (const [i, path] of written.entries()) {
      a.record(draft(path));
      if (i === 249 || i === 499) await a.flush();
    }
    await vi.waitFor(() => expect(notices.flat()).toHaveLength(500));
    for (const ids of notices) b.heardElsewhere(ids);
    await vi.waitFor(() => expect(heard).toHaveLength(500), { timeout: 5_000 });
    expect(heard).toEqual(written);
  });

  it('retention trims everyone’s oldest entries, also when both replicas trim at once, and clear clears everyone’s', async () => {
    const [a, b] = [await start(), await start()];
    await recordInTurn([1, 2, 3, 4].map((n) => [n % 2 ? a : b, draft(`/e/${n}`)]));
    a.retain({ limit: 3, maxAgeDays: 0 });
    // Another replica's reads wait for nothing of this one's: the retain is done once a flush after it answers.
    await a.flush();
    expect(paths(await b.list(10))).toEqual(['/e/4', '/e/3', '/e/2']);

    // Both replicas record and trim together, many times over: none of them fails, and both see the two written last.
    for (let round = 0; round < 20; round += 1) {
      a.record(draft(`/a/${round}`));
      b.record(draft(`/b/${round}`));
      a.retain({ limit: 2, maxAgeDays: 0 });
      b.retain({ limit: 2, maxAgeDays: 0 });
    }
    await Promise.all([a.flush(), b.flush()]);
    const kept = paths(await a.list(10));
    expect(kept).toHaveLength(2);
    expect(['/a/19', '/b/19']).toContain(kept[0]);
    expect(paths(await b.list(10))).toEqual(kept);

    expect(await b.clear()).toBe(2);
    expect(await a.list(10)).toEqual([]);
    expect(await b.list(10)).toEqual([]);
  });

  it('trims entries past the maximum age whichever replica wrote them', async () => {
    const old = `${idTimePrefix(Date.now() - 3 * DAY)}-7000-8000-000000000000`;
    const fresh = `${idTimePrefix(Date.now())}-7000-8000-000000000000`;
    const [first, second] = await Promise.all([1, 2].map(() => PostgresHistory.open({ databaseUrl: url, limit: 100, log: () => undefined })));
    try {
      await first.append([stored(old)], []);
      await second.append([stored(fresh)], []);
      await second.retain({ limit: 100, maxAgeDays: 1 });
      expect((await first.list(10)).map((json) => (JSON.parse(json) as { id: string }).id)).toEqual([fresh]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('trims on two replicas at once that reach the same old rows in opposite orders, without a deadlock', async () => {
    // Rows written in one order and dated in the other: a trim by count goes through them by seq, one by age by id.
    const [late, middle, early] = [1, 2, 3].map((days) => `${idTimePrefix(Date.now() - (3 + days) * DAY)}-7000-8000-000000000000`);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // As on a large table: each DELETE goes by its index, not through the heap in the order rows were written.
    const database = new URL(url).pathname.slice(1);
    for (const scan of ['seqscan', 'bitmapscan']) await admin.query(`ALTER DATABASE ${database} SET enable_${scan} = off`);
    const [first, second] = await Promise.all([1, 2].map(() => PostgresHistory.open({ databaseUrl: url, limit: 100, log: () => undefined })));
    try {
      for (const id of [late, middle, early]) await first.append([stored(id)], []);
      // Held here, the middle row stops a trim there once it has taken the first row of its order: both trims, were
      // nothing to keep them apart, and then each would wait for the row the other took.
      await admin.query('BEGIN');
      await admin.query('SELECT seq FROM request_log WHERE id = $1 FOR UPDATE', [middle]);
      const trims = Promise.allSettled([first.retain({ limit: 0, maxAgeDays: 0 }), second.retain({ limit: 100, maxAgeDays: 1 })]);
      await expect.poll(waiting, { timeout: 10_000 }).toBe(2);
      await admin.query('COMMIT');
      expect((await trims).filter((trim) => trim.status === 'rejected')).toEqual([]);
      expect(await first.list(10)).toEqual([]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('a batch written again (its commit unanswered, retried) is kept once, and the migration folds older copies', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      // A database the first schema wrote a batch to twice, its log line under one id both times.
      await migratePostgres(pool, HISTORY_POSTGRES_MIGRATIONS.slice(0, 1), HISTORY_LEDGER);
      const entry = stored(`${idTimePrefix(Date.now())}-7000-8000-000000000001`).slice(0, 2);
      const line = ['line-1', new Date().toISOString(), 'app-1', null, 'token', 't1', 'read', 'Read t1'];
      for (let copy = 0; copy < 2; copy++) {
        await pool.query('INSERT INTO request_log (id, entry) VALUES ($1, $2)', entry);
        await pool.query('INSERT INTO logs (id, created_at, actor_id, actor_type, entity_type, entity_id, operation, message) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', line);
      }
    } finally {
      await pool.end();
    }
    const history = await PostgresHistory.open({ databaseUrl: url, limit: 100, log: () => undefined });
    try {
      expect(await history.list(10)).toHaveLength(1);
      expect((await history.logs({ size: 10, page: 1 })).total).toBe(1);
      const entries = [stored(`${idTimePrefix(Date.now())}-7000-8000-000000000002`)];
      const lines: StoredLine[] = [[new Date().toISOString(), 'app-1', null, 'token', 't2', 'read', 'Read t2']];
      await history.append(entries, lines);
      await history.append(entries, lines);
      expect(await history.list(10)).toHaveLength(2);
      expect((await history.logs({ size: 10, page: 1 })).lines.map((kept) => kept.entity_id)).toEqual(['t2', 't1']);
    } finally {
      await history.close();
    }
  });

  it('`GET /logs` lines come from both replicas, newest first, by page or cursor, and outlive a clear', async () => {
    const [a, b] = [await start(), await start()];
    await recordInTurn([
      [a, draft('/tokens/t1', { activities: [activity('t1')] })],
      [b, draft('/proxies/p1', { activities: [activity('p1', 'proxy')] })],
      [a, draft('/tokens/t2', { activities: [activity('t2')] })],
    ]);
    for (const replica of [a, b]) {
      const page = await replica.logs({ size: 10, page: 1 });
      expect({ ids: page.lines.map((line) => line.entity_id), total: page.total }).toEqual({ ids: ['t2', 'p1', 't1'], total: 3 });
      const cursor = await replica.logs({ size: 2 });
      expect({ ids: cursor.lines.map((line) => line.entity_id), more: cursor.more }).toEqual({ ids: ['t2', 'p1'], more: true });
      const rest = await replica.logs({ size: 2, after: cursor.lines[1].seq });
      expect({ ids: rest.lines.map((line) => line.entity_id), more: rest.more }).toEqual({ ids: ['t1'], more: false });
      const tokens = await replica.logs({ size: 10, page: 1, entity_type: 'token' });
      expect(tokens.lines.map((line) => line.entity_id)).toEqual(['t2', 't1']);
      expect(tokens.lines[0]).toMatchObject({ actor_id: 'app-1', operation: 'read', message: 'Read t2', actor_type: null });
    }
    await a.clear();
    expect((await b.logs({ size: 10, page: 1 })).total).toBe(3);
    // A retention of no hours leaves no line, whichever replica wrote it.
    b.retainLogs(0);
    await b.flush();
    expect((await a.logs({ size: 10, page: 1 })).total).toBe(0);
  });

  it('goes on after its connection is killed in the middle of a batch: that batch and the entries after it arrive', async () => {
    const logged: string[] = [];
    const log = await RequestLog.start({ dataDir: null, limit: 100, databaseUrl: `${url}?application_name=history-a`, log: (line) => logged.push(line) });
    replicas.push(log);
    await recordInTurn([[log, draft('/a/1')]]);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // The next batch waits for the table, inside its transaction, while its connection is killed.
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE request_log IN ACCESS EXCLUSIVE MODE');
    log.record(draft('/a/2'));
    const written = log.flush();
    await expect.poll(waiting, { timeout: 2_000 }).toBe(1);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'history-a'");
    await admin.query('COMMIT');
    await written;
    await recordInTurn([[log, draft('/a/3')]]);
    expect(paths(await log.list())).toEqual(['/a/3', '/a/2', '/a/1']);
    // Said once, for the operator; nothing said lost.
    expect(logged.filter((line) => line.includes('history'))).toEqual([expect.stringContaining('The request history lost its database connection')]);
  });
});
