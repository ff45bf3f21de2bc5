import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { idTimePrefix } from '../../electron/engine/history/entry-id';
import { HISTORY_FILE, HISTORY_SCHEMA_VERSION, HistorySchemaError, HistoryStore, type StoredEntry } from '../../electron/engine/history/history-store';
import { tempDir } from '../support/test-engine';

const entry = (id: string): StoredEntry => [id, JSON.stringify({ id, path: `/tokens/${id}` }), null];
const ids = (rows: string[]) => rows.map((json) => JSON.parse(json).id);

const dirs: string[] = [];
const stores: HistoryStore[] = [];
function open(dataDir: string | null, limit = 100, log: (line: string) => void = () => undefined): HistoryStore {
  const store = HistoryStore.open({ dataDir, limit, log });
  stores.push(store);
  return store;
}
function dir(): string {
  const made = tempDir('tokenbench-history-');
  dirs.push(made);
  return made;
}
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('the history store', () => {
  it('keeps the newest entries up to its limit, trimming the oldest first across batches', () => {
    const store = open(dir(), 3);
    store.append([entry('a'), entry('b')]);
    store.append([entry('c'), entry('d'), entry('e')]);
    expect(ids(store.list(10))).toEqual(['e', 'd', 'c']);
    expect(store.get('a')).toBeUndefined();
    store.append([entry('f')]);
    expect(ids(store.list(10))).toEqual(['f', 'e', 'd']);
  });

  it('reads entries by id oldest first, without their answers, leaving out those gone', () => {
    const store = open(null, 3);
    const answered: StoredEntry = ['c', JSON.stringify({ id: 'c', path: '/proxy', details: { response: { body: {} } } }), null, 'the answer'];
    store.append([entry('a'), entry('b'), answered, entry('d')]);
    expect(ids(store.named(['d', 'a', 'c', 'b']))).toEqual(['b', 'c', 'd']);
    expect(store.named(['c'])[0]).not.toContain('the answer');
    expect(store.get('c')).toContain('the answer');
  });

  it('trims to its retention as it opens: a lower limit than the file was written with', () => {
    const dataDir = dir();
    open(dataDir, 10).append(['a', 'b', 'c', 'd'].map(entry));
    expect(ids(open(dataDir, 2).list(10))).toEqual(['d', 'c']);
  });

  it('lets entries older than the maximum age go, on a new retention and on every batch', () => {
    const now = Date.now();
    const DAY = 24 * 60 * 60 * 1000;
    const madeAt = (ms: number, name: string) => `${idTimePrefix(ms)}-7000-8000-${name.padStart(12, '0')}`;
    const store = open(dir());
    const [old, week, hour] = [madeAt(now - 40 * DAY, 'old'), madeAt(now - 7 * DAY, 'week'), madeAt(now - 60 * 60 * 1000, 'hour')];
    store.append([old, week, hour].map(entry));
    expect(ids(store.list(10))).toEqual([hour, week, old]);
    store.retain({ limit: 100, maxAgeDays: 30 }, now);
    expect(ids(store.list(10))).toEqual([hour, week]);
    store.retain({ limit: 100, maxAgeDays: 1 }, now);
    expect(ids(store.list(10))).toEqual([hour]);
    // A batch arriving with an entry already too old (a clock set back) is trimmed as it is written.
    store.append([entry(madeAt(now - 2 * DAY, 'late')), entry(madeAt(now, 'new'))]);
    expect(ids(store.list(10))).toEqual([madeAt(now, 'new'), hour]);
    // 0: kept whatever their age.
    store.retain({ limit: 100, maxAgeDays: 0 }, now);
    store.append([entry(madeAt(now - 400 * DAY, 'ancient'))]);
    expect(store.list(10)).toHaveLength(3);
  });

  it('gives back a body kept as bytes as the entry\'s request_body text, and none for a body that is not UTF-8', () => {
    const store = open(dir());
    const sent = '{"card":"{{ tok_1 | json: \'$.number\' }}","note":"é"}';
    store.append([
      ['json', JSON.stringify({ id: 'json', request_body: { bytes: 9000, utf8: true } }), new Uint8Array(Buffer.from(sent))],
      ['binary', JSON.stringify({ id: 'binary', request_body: { bytes: 3, utf8: false } }), new Uint8Array([0xff, 0xfe, 0x00])],
    ]);
    expect(JSON.parse(store.get('json')!).request_body).toEqual({ bytes: 9000, text: sent });
    expect(JSON.parse(store.get('binary')!).request_body).toEqual({ bytes: 3, text: null });
    expect(store.list(10).map((json) => JSON.parse(json).request_body.text)).toEqual([null, sent]);
  });

  it('pages back from an entry id, newest first, and finds one entry by id', () => {
    const store = open(dir());
    store.append(['a', 'b', 'c', 'd', 'e'].map(entry));
    expect(ids(store.list(2))).toEqual(['e', 'd']);
    expect(ids(store.list(2, 'd'))).toEqual(['c', 'b']);
    expect(ids(store.list(2, 'b'))).toEqual(['a']);
    expect(store.list(2, 'unknown')).toEqual([]);
    expect(JSON.parse(store.get('c')!)).toEqual({ id: 'c', path: '/tokens/c' });
    expect(store.get('unknown')).toBeUndefined();
  });

  it('keeps its entries in history.sqlite across a reopen, with its schema version', () => {
    const dataDir = dir();
    const first = open(dataDir);
    first.append([entry('kept')]);
    first.close();
    stores.splice(stores.indexOf(first), 1);
    expect(ids(open(dataDir).list(10))).toEqual(['kept']);
    const db = new Database(join(dataDir, HISTORY_FILE), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    db.close();
  });

  it('keeps a kept answer beside its entry: read with the entry alone, and with an export page, never with a list', () => {
    const store = open(dir());
    const answered = (id: string): StoredEntry => [id, JSON.stringify({ id, details: { response: { body: { bytes: 9, masked: 1, not_kept: null } } } }), null, `{"n":"${id}"}`];
    store.append([answered('a'), answered('b')]);
    const answerOf = (json: string | undefined) => (JSON.parse(json!) as { details: { response: { body: { text?: string } } } }).details.response.body.text;
    expect(store.list(10).map(answerOf)).toEqual([undefined, undefined]);
    expect(answerOf(store.get('a'))).toBe('{"n":"a"}');
    expect(store.page(10, Infinity).entries.map(answerOf)).toEqual(['{"n":"b"}', '{"n":"a"}']);
  });

  it('upgrades a version 1 history in place: its entries stay, and answers are kept from then on', () => {
    const dataDir = dir();
    const earlier = new Database(join(dataDir, HISTORY_FILE));
    earlier.exec('CREATE TABLE request_log (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, entry TEXT NOT NULL, body BLOB)');
    earlier.pragma('user_version = 1');
    earlier.prepare('INSERT INTO request_log (id, entry) VALUES (?, ?)').run('before', entry('before')[1]);
    earlier.close();
    const store = open(dataDir);
    store.append([['after', JSON.stringify({ id: 'after', details: { response: { body: { bytes: 2 } } } }), null, '{}']]);
    expect(ids(store.list(10))).toEqual(['after', 'before']);
    expect(JSON.parse(store.get('after')!).details.response.body.text).toBe('{}');
    const db = new Database(join(dataDir, HISTORY_FILE), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    db.close();
  });

  it('keeps a proxy entry\'s outbound body in its own column, card numbers masked, and shows it with the entry, alone and in lists', () => {
    const dataDir = dir();
    const store = open(dataDir);
    const outbound = '{"card":"4242424242424242","cvc":"[redacted]"}';
    store.append([['sent', JSON.stringify({ id: 'sent', details: { outbound: { method: 'POST', detokenized_body: null } } }), null, null, outbound]]);
    const shown = '{"card":"XXXXXXXXXXXX4242","cvc":"[redacted]"}';
    const outboundOf = (json: string | undefined) => (JSON.parse(json!) as { details: { outbound: { detokenized_body: string | null } } }).details.outbound.detokenized_body;
    expect(outboundOf(store.get('sent'))).toBe(shown);
    expect(store.list(10).map(outboundOf)).toEqual([shown]);
    expect(store.page(10, Infinity).entries.map(outboundOf)).toEqual([shown]);
    // The entry's JSON is written as the main thread made it: the body beside it is never parsed into it.
    const db = new Database(join(dataDir, HISTORY_FILE), { readonly: true });
    const row = db.prepare('SELECT * FROM request_log WHERE id = ?').get('sent') as { entry: string; outbound?: string };
    db.close();
    expect(outboundOf(row.entry)).toBeNull();
    expect(row.outbound).toBe(shown);
  });

  it('upgrades a version 2 history in place: an entry with its outbound body in its JSON reads as before', () => {
    const dataDir = dir();
    const earlier = new Database(join(dataDir, HISTORY_FILE));
    earlier.exec('CREATE TABLE request_log (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, entry TEXT NOT NULL, body BLOB, answer TEXT)');
    earlier.pragma('user_version = 2');
    const before = { id: 'before', details: { outbound: { method: 'POST', detokenized_body: '{"card":"XXXXXXXXXXXX4242"}' } } };
    earlier.prepare('INSERT INTO request_log (id, entry) VALUES (?, ?)').run('before', JSON.stringify(before));
    earlier.close();
    const store = open(dataDir);
    store.append([['after', JSON.stringify({ id: 'after', details: { outbound: { method: 'POST', detokenized_body: null } } }), null, null, '{"n":1}']]);
    const outboundOf = (json: string) => (JSON.parse(json) as { details: { outbound: { detokenized_body: string | null } } }).details.outbound.detokenized_body;
    expect(store.list(10).map(outboundOf)).toEqual(['{"n":1}', '{"card":"XXXXXXXXXXXX4242"}']);
    expect(JSON.parse(store.get('before')!)).toEqual(before);
    const db = new Database(join(dataDir, HISTORY_FILE), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(HISTORY_SCHEMA_VERSION);
    expect(db.prepare('SELECT outbound FROM request_log WHERE id = ?').pluck().get('after')).toBe('{"n":1}');
    db.close();
  });

  it('takes over a history an earlier version left in WAL mode when it was killed, with every entry', () => {
    const earlierDir = dir();
    const earlier = new Database(join(earlierDir, HISTORY_FILE));
    earlier.exec('CREATE TABLE request_log (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, entry TEXT NOT NULL, body BLOB)');
    earlier.pragma('user_version = 1');
    earlier.pragma('journal_mode = WAL');
    earlier.prepare('INSERT INTO request_log (id, entry) VALUES (?, ?)').run('in-the-wal', entry('in-the-wal')[1]);
    // The files as a kill would leave them: the entry is in the WAL only (closing would fold it into the file).
    const dataDir = dir();
    for (const suffix of ['', '-wal', '-shm']) copyFileSync(join(earlierDir, HISTORY_FILE + suffix), join(dataDir, HISTORY_FILE + suffix));
    earlier.close();
    const store = open(dataDir);
    expect(ids(store.list(10))).toEqual(['in-the-wal']);
    store.append([entry('after')]);
    expect(ids(store.list(10))).toEqual(['after', 'in-the-wal']);
    expect(existsSync(join(dataDir, `${HISTORY_FILE}-wal`))).toBe(false);
  });

  it('keeps every committed entry and nothing of a batch cut by kill -9 in the middle of its write', async () => {
    const dataDir = dir();
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), join(__dirname, 'kill-mid-batch.ts'), dataDir]);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const [, signal] = await once(child, 'exit');
    expect(signal, output).toBe('SIGKILL');
    expect(output).toBe('committed\n');
    // Cut mid-write: the journal holds what the batch's pages replaced, and the next open puts it back.
    expect(statSync(join(dataDir, `${HISTORY_FILE}-journal`)).size).toBeGreaterThan(0);
    const lines: string[] = [];
    // Opened with the same limit: a store trims to its retention as it opens.
    const store = open(dataDir, 1000, (line) => lines.push(line));
    // The committed batch, trimmed to the limit of 1,000 (see kill-mid-batch.ts), and nothing of the cut one.
    expect(ids(store.list(5000))).toEqual(Array.from({ length: 1000 }, (_, i) => `committed-${2999 - i}`));
    expect(lines).toEqual([]);
    const check = new Database(join(dataDir, HISTORY_FILE), { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
  });

  it('keeps an in-memory history without writing a file', () => {
    const store = open(null);
    store.append([entry('a')]);
    expect(ids(store.list(10))).toEqual(['a']);
    expect(existsSync(HISTORY_FILE)).toBe(false);
  });

  it('refuses a history written by a newer schema, naming the file and leaving it as it was', () => {
    const dataDir = dir();
    const file = join(dataDir, HISTORY_FILE);
    const newer = new Database(file);
    newer.exec('CREATE TABLE future (x)');
    newer.pragma(`user_version = ${HISTORY_SCHEMA_VERSION + 1}`);
    newer.close();
    const before = readFileSync(file);
    expect(() => open(dataDir)).toThrow(HistorySchemaError);
    expect(() => open(dataDir)).toThrow(`${file} holds request history schema version ${HISTORY_SCHEMA_VERSION + 1}, newer than this Tokenbench reads`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(dataDir)).toEqual([HISTORY_FILE]);
  });

  it('moves an unreadable history file and its journal and WAL aside, says so in one line, and starts an empty history', () => {
    const dataDir = dir();
    const file = join(dataDir, HISTORY_FILE);
    writeFileSync(file, 'this is not an SQLite database, it only has the name of one'.repeat(100));
    writeFileSync(`${file}-journal`, 'a stale journal that must not be rolled back into the new file');
    writeFileSync(`${file}-wal`, 'a stale WAL that must not be replayed into the new file');
    const lines: string[] = [];
    const store = open(dataDir, 100, (line) => lines.push(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/could not be read \(SQLITE_NOTADB\): moved it to .*history\.sqlite\.unreadable-\d+/);
    const aside = readdirSync(dataDir).find((f) => f.startsWith(`${HISTORY_FILE}.unreadable-`))!;
    expect(readFileSync(join(dataDir, aside), 'utf8')).toContain('this is not an SQLite database');
    expect(store.list(10)).toEqual([]);
    store.append([entry('fresh')]);
    expect(ids(store.list(10))).toEqual(['fresh']);
    // The old journal and WAL are gone or aside (SQLite drops them when the failed connection closes): nothing stale
    // is live.
    for (const live of [file, `${file}-journal`, `${file}-wal`]) {
      expect(existsSync(live) && /stale (journal|WAL)/.test(readFileSync(live, 'latin1'))).toBe(false);
    }
  });
});
