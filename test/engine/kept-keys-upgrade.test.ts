import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { ApplicationStore } from '../../electron/engine/access/application-store';
import { Sealer } from '../../electron/engine/storage/crypto';
import { applyMigrations, MIGRATIONS } from '../../electron/engine/storage/migrations';

/** A vault from before export keys: its workbench keys are carried over, and still open and send. */
it('keeps the workbench keys a vault made before export keys, sealed as they were', () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  applyMigrations(db, MIGRATIONS.filter((m) => m.version < 10));
  const sealer = new Sealer(randomBytes(32));
  const secret = 'key_local_made_before_the_upgrade_0123456789';
  const now = new Date().toISOString();
  db.prepare("INSERT INTO applications (id, tenant_id, name, type, permissions, rules, created_at) VALUES ('app', 't', 'Backend', 'private', '[]', '[]', ?)").run(now);
  db.prepare("INSERT INTO api_keys (id, application_id, key_hash, created_at) VALUES ('key', 'app', ?, ?)").run(sealer.hashApiKey(secret), now);
  db.prepare("INSERT INTO workbench_keys (key_id, application_id, sealed) VALUES ('key', 'app', ?)").run(sealer.seal(secret, 'workbench-key:app:key'));

  applyMigrations(db);
  const applications = new ApplicationStore(db, sealer, 't');
  expect(applications.keptKey('app', 'workbench')).toMatchObject({ id: 'key', key: secret, made: false });
  expect(applications.keptKeyInfo('app', 'export')).toBeNull();
  expect(applications.keptKey('app', 'export')).toMatchObject({ made: true });
  expect([...applications.keptKeys('app').values()].sort()).toEqual(['export', 'workbench']);
  // Revoked like any key: the kept row goes with it.
  applications.deleteKey('app', 'key');
  expect(applications.keptKeyInfo('app', 'workbench')).toBeNull();
  db.close();
});
