import Database from 'better-sqlite3';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HISTORY_FILE } from '../../electron/engine/history/history-store';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { applyMigrations, MIGRATIONS } from '../../electron/engine/storage/migrations';
import { startTestEngine, tempDir } from '../support/test-engine';

const historyTables = (db: Database.Database) => db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'request_log%'").all();

describe('the vault once the history has its own file', () => {
  it('drops the request_log table and its index from a vault made before the move', () => {
    const db = new Database(':memory:');
    applyMigrations(db, MIGRATIONS.filter((m) => m.version < 3));
    db.prepare("INSERT INTO request_log (id, entry) VALUES ('old', '{}')").run();
    expect(historyTables(db)).toHaveLength(2);
    applyMigrations(db);
    expect(historyTables(db)).toEqual([]);
    db.close();
  });

  it('writes each request to history.sqlite and none to the vault file', async () => {
    const dir = tempDir();
    try {
      const t = await startTestEngine({ dataDir: dir });
      const marker = '/history-marker-7f3a';
      await t.call('GET', marker, { key: t.privateKey });
      await t.stop();
      const vault = new Database(join(dir, DATABASE_FILE), { readonly: true });
      expect(historyTables(vault)).toEqual([]);
      vault.close();
      // Stopped and closed: each file's WAL has been folded into it.
      expect(readFileSync(join(dir, DATABASE_FILE)).includes(marker)).toBe(false);
      expect(readFileSync(join(dir, HISTORY_FILE)).includes(marker)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
