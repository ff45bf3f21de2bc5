import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { ApplicationStore } from '../../electron/engine/access/application-store';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { Sealer } from '../../electron/engine/storage/crypto';
import { unitsOf } from '../../electron/engine/storage/sqlite/unit-driver';
import { applyMigrations, MIGRATIONS } from '../../electron/engine/storage/migrations';

/** A vault from before export keys: its workbench keys are carried over, and still open and send. */
it('keeps the workbench keys a vault made before export keys, sealed as they were', async () => {
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
  const applications = new ApplicationStore(unitsOf(db), sealer, 't', new EventOutbox(unitsOf(db), 't'));
  await applications.load();
  expect(await applications.keptKey('app', 'workbench')).toMatchObject({ id: 'key', key: secret, made: false });
  expect(applications.keptKeyInfo('app', 'export')).toBeNull();
  expect(await applications.keptKey('app', 'export')).toMatchObject({ made: true });
  expect([...applications.keyFacts('app').values()].map((key) => key.kept).sort()).toEqual(['export', 'workbench']);
  // Revoked like any key: the kept row goes with it.
  await applications.deleteKey('app', 'key', null);
  expect(applications.keptKeyInfo('app', 'workbench')).toBeNull();
  db.close();
});

/** Keys made before their last four were kept have none: the workbench names them by their id instead. */
it('keeps the last four of every key made from now on, and none for the keys made before', async () => {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  applyMigrations(db, MIGRATIONS.filter((m) => m.version < 12));
  const sealer = new Sealer(randomBytes(32));
  const now = new Date().toISOString();
  db.prepare("INSERT INTO applications (id, tenant_id, name, type, permissions, rules, created_at) VALUES ('app', 't', 'Backend', 'private', '[]', '[]', ?)").run(now);
  db.prepare("INSERT INTO api_keys (id, application_id, key_hash, created_at) VALUES ('old', 'app', ?, ?)").run(sealer.hashApiKey('key_local_made_before_endings_were_kept'), now);

  applyMigrations(db);
  const applications = new ApplicationStore(unitsOf(db), sealer, 't', new EventOutbox(unitsOf(db), 't'));
  await applications.load();
  const made = await applications.createKey('app', null, null);
  const kept = await applications.keptKey('app', 'workbench');
  expect(Object.fromEntries(applications.keyFacts('app'))).toEqual({
    old: { key_last4: null, kept: null },
    [made.id]: { key_last4: made.key.slice(-4), kept: null },
    [kept.id]: { key_last4: kept.key.slice(-4), kept: 'workbench' },
  });
  // The API's key objects stay the vendor's: no last four there.
  expect(applications.listKeys('app').map((key) => Object.keys(key).sort())).toEqual(Array(3).fill(['created_at', 'created_by', 'id']));
  db.close();
});
