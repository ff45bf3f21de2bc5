import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../electron/engine';
import { LOG_LINE_LIMIT, LogStore, type StoredLine, storedLine } from '../../electron/engine/logs/log-store';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** The log lines' own retention (docs/api.md, Logs): hours from their request, a bound on their count, a setting. */

const HOUR = 60 * 60 * 1000;
const line = (entityId: string): StoredLine =>
  storedLine(new Date().toISOString(), { actor_id: null, entity_type: 'token', entity_id: entityId, operation: 'read', message: 'Token retrieved' });
const ids = (store: LogStore) => store.list({ size: 100, page: 1 }).lines.map((l) => l.entity_id);

describe('the log store', () => {
  const opened: Database.Database[] = [];
  const open = (hours: number) => {
    const db = new Database(':memory:');
    opened.push(db);
    return new LogStore(db, hours);
  };
  afterEach(() => opened.splice(0).forEach((db) => db.close()));

  it('drops lines older than its retention, and keeps to a new one at once', () => {
    const store = open(24);
    store.append([line('a'), line('b')]);
    store.trim(Date.now() + 23 * HOUR);
    expect(ids(store)).toEqual(['b', 'a']);
    store.retain(48, Date.now() + 25 * HOUR);
    expect(ids(store)).toEqual(['b', 'a']);
    store.retain(1, Date.now() + 2 * HOUR);
    expect(ids(store)).toEqual([]);
  });

  it(`keeps no more than ${LOG_LINE_LIMIT.toLocaleString('en')} lines, the oldest leaving first`, () => {
    const store = open(24);
    const batch: StoredLine[] = [];
    for (let i = 0; i <= LOG_LINE_LIMIT; i++) batch.push(line(`t${i}`));
    store.append(batch);
    const { lines, total } = store.list({ size: 1, page: 1 });
    expect(total).toBe(LOG_LINE_LIMIT);
    expect(lines[0].entity_id).toBe(`t${LOG_LINE_LIMIT}`);
    expect(store.list({ size: 1, page: LOG_LINE_LIMIT }).lines[0].entity_id).toBe('t1');
  });
});

describe('the retention setting', () => {
  let t: TestEngine | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('is 24 hours by default, changed in Settings and saved, refused beyond 30 days', async () => {
    t = await startTestEngine({ workbenchRoutes: true });
    expect((await t.workbench('getSettings')).body.logs.logRetentionHours).toEqual({ value: 24, default: 24, stored: null, pinnedBy: null });
    expect((await t.workbench('changeLogRetention', { logRetentionHours: 721 })).status).toBe(400);
    const changed = await t.workbench('changeLogRetention', { logRetentionHours: 48 });
    expect(changed.status).toBe(200);
    expect(changed.body.logs.logRetentionHours).toMatchObject({ value: 48, stored: 48 });
  });

  it('is an engine option that wins over Settings', async () => {
    t = await startTestEngine({ workbenchRoutes: true, logRetentionHours: 2 });
    expect((await t.workbench('getSettings')).body.logs.logRetentionHours).toMatchObject({ value: 2, pinnedBy: '--log-retention 2' });
    expect((await t.workbench('changeLogRetention', { logRetentionHours: 48 })).status).toBe(409);
    await expect(startEngine({ port: 0, echoPort: null, logRetentionHours: 0, log: () => undefined })).rejects.toThrow(/from 1 to 720/);
  });
});
