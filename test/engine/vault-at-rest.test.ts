import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Sealer, SealError, loadOrCreateMasterKey } from '../../electron/engine/storage/crypto';
import { applyMigrations, MIGRATIONS, MigrationError } from '../../electron/engine/storage/migrations';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { HISTORY_FILE } from '../../electron/engine/history/history-store';
import { startTestEngine, tempDir , filesIn } from '../support/test-engine';

const CANARY_PAN = '4000056655665556';
const CANARY_SSN = '078-05-1120';

describe('encryption at rest', () => {
  it('never writes a canary card number or SSN to the database, WAL or any file of the data dir', async () => {
    const dir = tempDir();
    const logLines: string[] = [];
    const t = await startTestEngine({ dataDir: dir, log: (line) => logLines.push(line) });
    const grepDataDir = () => {
      const files = filesIn(dir);
      for (const file of files) {
        const bytes = readFileSync(file);
        for (const canary of [CANARY_PAN, CANARY_SSN]) expect(bytes.includes(Buffer.from(canary)), `${canary} in ${file}`).toBe(false);
      }
      return files;
    };
    try {
      const reveal = await t.call('POST', '/applications', {
        key: t.managementKey,
        body: {
          name: 'reveal',
          type: 'private',
          rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:search', 'token:update'] }],
        },
      });
      const key = reveal.body.key;
      const card = await t.call('POST', '/tokens', {
        key,
        headers: { 'BT-IDEMPOTENCY-KEY': 'canary-1' },
        body: { type: 'card', data: { number: CANARY_PAN, expiration_month: 4, expiration_year: 2033, cvc: '737' }, search_indexes: ['{{ data.number }}'] },
      });
      expect(card.status).toBe(201);
      expect(card.body.data.number).toBe(CANARY_PAN);
      await t.call('POST', '/tokens', { key, body: { type: 'social_security_number', data: CANARY_SSN } });
      await t.call('POST', '/tokenize', { key, body: { pan: CANARY_PAN } });
      await t.call('POST', '/detokenize', { key, body: { pan: `{{ ${card.body.id} | json: '$.number' }}` } });
      await t.call('POST', '/tokens/search', { key, body: { query: `data:${CANARY_PAN}` } });
      await t.call('PATCH', `/tokens/${card.body.id}`, {
        key,
        body: { data: { expiration_year: 2034 } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      // A failing request that carries the canary must not leak it either.
      await t.call('POST', '/tokens', { key, body: { type: 'card', data: { number: CANARY_PAN + '0' } } });
      const search = await t.call('POST', '/tokens/search', { key, body: { query: `data:${CANARY_PAN}` } });
      expect(search.body.data.map((d: any) => d.id)).toContain(card.body.id);
      await t.engine.history.flush();
      // While running, the recent writes sit in the WALs: check them before close folds them into the databases.
      const files = grepDataDir();
      expect(files).toContain(join(dir, `${DATABASE_FILE}-wal`));
      // The history (its own file) was grepped too, and holds these requests: the absence above means something.
      const history = Buffer.concat(files.filter((f) => f.startsWith(join(dir, HISTORY_FILE))).map((f) => readFileSync(f)));
      expect(history.includes('/detokenize')).toBe(true);
    } finally {
      await t.engine.stop();
    }
    grepDataDir();
    expect(logLines.join('\n')).not.toContain(CANARY_PAN);
  });

  it('keeps the master key in a 0600 file and the vault in WAL mode, across restarts', async () => {
    const dir = tempDir();
    const first = await startTestEngine({ dataDir: dir });
    const created = await first.call('POST', '/tokens', { key: first.privateKey, body: { type: 'token', data: 'persisted' } });
    await first.engine.stop();
    expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600);
    const second = await startTestEngine({ dataDir: dir });
    try {
      expect(second.engine.bootstrapKeys).toBeNull();
      const read = await second.call('GET', `/tokens/${created.body.id}`, { key: first.privateKey });
      expect(read.status).toBe(200);
      expect(read.body.fingerprint).toBe(created.body.fingerprint);
    } finally {
      await second.engine.stop();
    }
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });
});

describe('sealing', () => {
  const sealer = new Sealer(loadOrCreateMasterKey(null));

  it('detects a flipped ciphertext byte and a blob moved to another row', () => {
    const blob = sealer.seal('secret', 'token-a');
    expect(sealer.open(blob, 'token-a').toString()).toBe('secret');
    for (const at of [1, 20, 45, 70, blob.length - 1]) {
      const tampered = Buffer.from(blob);
      tampered[at] ^= 0x01;
      expect(() => sealer.open(tampered, 'token-a')).toThrow(SealError);
    }
    expect(() => sealer.open(blob, 'token-b')).toThrow(SealError);
  });

  it('never reuses a nonce', () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const blob = sealer.seal('same', 'id');
      nonces.add(blob.subarray(1, 13).toString('hex'));
      nonces.add(blob.subarray(61, 73).toString('hex'));
    }
    expect(nonces.size).toBe(1000);
  });

  it('fingerprints deterministically per install, differently across installs, and not as a bare hash', () => {
    const other = new Sealer(loadOrCreateMasterKey(null));
    expect(sealer.fingerprint(CANARY_PAN)).toBe(sealer.fingerprint(CANARY_PAN));
    expect(other.fingerprint(CANARY_PAN)).not.toBe(sealer.fingerprint(CANARY_PAN));
    const bare = createHash('sha256').update(CANARY_PAN).digest();
    expect(Buffer.from(sealer.fingerprint(CANARY_PAN), 'base64url').equals(bare)).toBe(false);
  });
});

describe('migrations', () => {
  it('applies once, and refuses a database whose applied migration was edited', () => {
    const db = new Database(':memory:');
    applyMigrations(db);
    applyMigrations(db);
    const versions = db.prepare('SELECT version FROM schema_migrations').all();
    expect(versions).toHaveLength(MIGRATIONS.length);
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: m.sql + '\n-- edited' } : m));
    expect(() => applyMigrations(db, edited)).toThrow(MigrationError);
  });

  it('rolls back a migration that fails half way, leaving no trace of it', () => {
    const db = new Database(':memory:');
    applyMigrations(db);
    const broken = [...MIGRATIONS, { version: 999, name: 'broken', sql: 'CREATE TABLE half (x); INSERT INTO nowhere VALUES (1);' }];
    expect(() => applyMigrations(db, broken)).toThrow();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
    expect(db.prepare('SELECT 1 FROM schema_migrations WHERE version = 999').get()).toBeUndefined();
  });
});
