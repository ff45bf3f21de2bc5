import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * What Settings will show of client encryption keys and sessions (docs/api.md, The workbench's own endpoints): the
 * live ones, with who made them and when they end, never a key's halves, a session's key or its nonce.
 */
let t: TestEngine;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
});
afterAll(() => t.stop());

describe('listClientKeys', () => {
  it('lists the live keys with who made them, and nothing of their halves', async () => {
    const made = (await t.call('POST', '/keys', { key: t.managementKey, body: {} })).body;
    const deleted = (await t.call('POST', '/keys', { key: t.managementKey, body: {} })).body;
    await t.call('DELETE', `/keys/${deleted.key_id}`, { key: t.managementKey });
    const listed = await t.workbench('listClientKeys');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      { key_id: made.key_id, expires_at: made.expires_at, created_at: expect.any(String), created_by: t.engine.bootstrapKeys!.management.application_id },
    ]);
  });
});

describe('listSessions', () => {
  it('lists the live sessions: whose, whether authorized, by whom and with what, and when each ends', async () => {
    const app = (await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'front end', type: 'public', permissions: ['token:create'] } })).body;
    const waiting = (await t.call('POST', '/sessions', { key: app.key })).body;
    const granted = (await t.call('POST', '/sessions', { key: app.key })).body;
    await t.call('POST', '/sessions/authorize', { key: t.privateKey, body: { nonce: granted.nonce, permissions: ['token:read'] } });
    const listed = await t.workbench('listSessions');
    expect(listed.status).toBe(200);
    const common = { application_id: app.id, application_name: 'front end', created_at: expect.any(String) };
    expect(listed.body).toEqual([
      { ...common, id: expect.any(String), authorized: false, permissions: [], rules: [], authorized_by: null, expires_at: waiting.expires_at },
      { ...common, id: expect.any(String), authorized: true, permissions: ['token:read'], rules: [], authorized_by: t.engine.bootstrapKeys!.private.application_id, expires_at: granted.expires_at },
    ]);
    expect(listed.text).not.toContain(granted.session_key);
    expect(listed.text).not.toContain(granted.nonce);
  });
});
