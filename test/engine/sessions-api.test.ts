import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SESSION_LIFE_MS } from '../../electron/engine/access/session-store';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** Sessions over plain HTTP: each error row of docs/api.md (Sessions), what a session may do, and its History. */
let t: TestEngine;
let publicKey: string;
let publicAppId: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  const app = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'front end', type: 'public', permissions: ['token:create'] } });
  publicKey = app.body.key;
  publicAppId = app.body.id;
});
afterAll(() => t.stop());

const createSession = async (key = publicKey) => (await t.call('POST', '/sessions', { key })).body as { session_key: string; nonce: string; expires_at: string };
const authorize = (body: unknown, key = t.privateKey) => t.call('POST', '/sessions/authorize', { key, body });

describe('POST /sessions errors', () => {
  it('answers 401 without a key, and 403 to any key but a public application\'s', async () => {
    expect((await t.call('POST', '/sessions')).status).toBe(401);
    for (const key of [t.privateKey, t.managementKey]) {
      const res = await t.call('POST', '/sessions', { key });
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/created by a public application/);
    }
    const session = await createSession();
    await authorize({ nonce: session.nonce, permissions: ['token:create'] });
    const bySession = await t.call('POST', '/sessions', { key: session.session_key });
    expect(bySession.status).toBe(403);
    expect(bySession.body.detail).toMatch(/A session cannot create sessions/);
  });
});

describe('POST /sessions/authorize errors', () => {
  it('answers 401 without a key, and 403 to any key but a private application\'s', async () => {
    const session = await createSession();
    expect((await t.call('POST', '/sessions/authorize', { body: { nonce: session.nonce, permissions: ['token:read'] } })).status).toBe(401);
    for (const key of [publicKey, t.managementKey]) {
      const res = await authorize({ nonce: session.nonce, permissions: ['token:read'] }, key);
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/authorized by a private application/);
    }
    const other = await createSession();
    await authorize({ nonce: other.nonce, permissions: ['token:read'] });
    const bySession = await authorize({ nonce: session.nonce, permissions: ['token:read'] }, other.session_key);
    expect(bySession.status).toBe(403);
    expect(bySession.body.detail).toMatch(/A session cannot authorize sessions/);
  });

  it.each<[string, unknown, string]>([
    ['no nonce', { permissions: ['token:read'] }, 'nonce'],
    ['neither permissions nor rules', { nonce: 'n' }, 'permissions'],
    ['empty permissions and rules', { nonce: 'n', permissions: [], rules: [] }, 'permissions'],
    ['a management permission', { nonce: 'n', permissions: ['application:read'] }, 'permissions.0'],
    ['a rule granting a management permission', { nonce: 'n', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['proxy:create'] }] }, 'rules.0.permissions.0'],
    ['a rule on no container', { nonce: 'n', rules: [{ priority: 1, container: 'pci', transform: 'reveal', permissions: ['token:read'] }] }, 'rules.0.container'],
    ['a rule with a container and conditions', { nonce: 'n', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'], conditions: [{ attribute: 'id', operator: 'equals', value: 'x' }] }] }, 'rules.0'],
    ['a rule with neither a container nor conditions', { nonce: 'n', rules: [{ priority: 1, transform: 'reveal', permissions: ['token:read'] }] }, 'rules.0'],
    ['a condition on another attribute', { nonce: 'n', rules: [{ priority: 1, transform: 'reveal', permissions: ['token:read'], conditions: [{ attribute: 'type', operator: 'equals', value: 'card' }] }] }, 'rules.0.conditions.0.attribute'],
    ['a condition with another operator', { nonce: 'n', rules: [{ priority: 1, transform: 'reveal', permissions: ['token:read'], conditions: [{ attribute: 'id', operator: 'starts_with', value: 'x' }] }] }, 'rules.0.conditions.0.operator'],
    ['an expires_at in the past', { nonce: 'n', permissions: ['token:read'], expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
    ['an expires_at that is no date', { nonce: 'n', permissions: ['token:read'], expires_at: 'in an hour' }, 'expires_at'],
  ])('answers 400 naming the field for %s', async (_, body, field) => {
    const res = await authorize(body);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toContain(field);
  });

  it('answers 403 when the authorizing application lacks what it would grant', async () => {
    const creator = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'creator only', type: 'private', permissions: ['token:create'] } });
    const session = await createSession();
    const res = await authorize({ nonce: session.nonce, permissions: ['token:read'] }, creator.body.key);
    expect(res.status).toBe(403);
    expect(res.body.detail).toBe('The application lacks token:read, so it cannot grant it to a session');
    expect((await authorize({ nonce: session.nonce, permissions: ['token:create'] }, creator.body.key)).status).toBe(204);
  });

  it('answers 404 for a nonce no live session has, and 409 for one already used', async () => {
    expect((await authorize({ nonce: 'unknown-nonce', permissions: ['token:read'] })).status).toBe(404);
    const session = await createSession();
    expect((await authorize({ nonce: session.nonce, permissions: ['token:read'] })).status).toBe(204);
    const again = await authorize({ nonce: session.nonce, permissions: ['token:read'] });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already authorized/);
  });

  it('answers 404 for the nonce of a session past its three minutes, never authorized', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const inTime = await createSession();
      const late = await createSession();
      vi.setSystemTime(Date.now() + SESSION_LIFE_MS - 1000);
      expect((await authorize({ nonce: inTime.nonce, permissions: ['token:read'] })).status).toBe(204);
      vi.setSystemTime(Date.now() + 2000);
      const res = await authorize({ nonce: late.nonce, permissions: ['token:read'] });
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe('No session has this nonce: it was never made, or has expired');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a session key', () => {
  it('is unknown (401) once its session expires; another session lives on', async () => {
    const session = await createSession();
    await authorize({ nonce: session.nonce, permissions: ['token:create'], expires_at: new Date(Date.now() + 1000).toISOString() });
    const unused = await createSession();
    expect((await t.call('POST', '/tokens', { key: session.session_key, body: { type: 'token', data: 'x' } })).status).toBe(201);
    await sleep(1100);
    expect((await t.call('POST', '/tokens', { key: session.session_key, body: { type: 'token', data: 'x' } })).status).toBe(401);
    // The unused session lives its three minutes: its nonce still works.
    expect((await authorize({ nonce: unused.nonce, permissions: ['token:read'] })).status).toBe(204);
  });

  it('uses, updates and deletes only the token its rule condition names', async () => {
    const mine = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'mine' } })).body;
    const theirs = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'theirs' } })).body;
    const session = await createSession();
    const conditions = [{ attribute: 'id', operator: 'equals', value: mine.id }];
    expect((await authorize({ nonce: session.nonce, rules: [{ priority: 1, conditions, transform: 'reveal', permissions: ['token:read', 'token:update', 'token:delete'] }] })).status).toBe(204);
    const patch = (id: string) => t.call('PATCH', `/tokens/${id}`, { key: session.session_key, body: { metadata: { a: 'b' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect((await patch(theirs.id)).status).toBe(403);
    expect((await patch(mine.id)).status).toBe(200);
    expect((await t.call('POST', '/detokenize', { key: session.session_key, body: { v: `{{ ${theirs.id} }}` } })).status).toBe(403);
    expect((await t.call('POST', '/detokenize', { key: session.session_key, body: { v: `{{ ${mine.id} }}` } })).body).toEqual({ v: 'mine' });
    expect((await t.call('POST', '/tokens/search', { key: session.session_key, body: { query: '' } })).status).toBe(403);
    // Its rules name tokens, which lists do not reach: an empty page, counted.
    const listed = await t.call('GET', '/tokens', { key: session.session_key });
    expect([listed.status, listed.body.data, listed.body.pagination?.total_items]).toEqual([200, [], 0]);
    expect((await t.call('DELETE', `/tokens/${theirs.id}`, { key: session.session_key })).status).toBe(403);
    expect((await t.call('DELETE', `/tokens/${mine.id}`, { key: session.session_key })).status).toBe(204);
  });

  it('may call the proxy when granted token:use, which its public application never may', async () => {
    const card = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: '4242424242424242' } })).body;
    const echo = await startTestEngine({ inMemory: true, echoPort: 0 });
    try {
      const session = await createSession();
      await authorize({ nonce: session.nonce, permissions: ['token:use'] });
      const headers = { 'BT-PROXY-URL': echo.engine.echoUrl!, 'content-type': 'application/json' };
      const asPublic = await t.call('POST', '/proxy', { key: publicKey, headers, raw: `{"n":"{{ ${card.id} }}"}` });
      expect(asPublic.status).toBe(403);
      const asSession = await t.call('POST', '/proxy', { key: session.session_key, headers, raw: `{"n":"{{ ${card.id} }}"}` });
      expect(asSession.status).toBe(200);
      expect(JSON.parse(asSession.body.body)).toEqual({ n: '4242424242424242' });
    } finally {
      await echo.stop();
    }
  });

  it('dies with its public application', async () => {
    const app = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'short-lived front end', type: 'public', permissions: ['token:create'] } });
    const session = await createSession(app.body.key);
    await authorize({ nonce: session.nonce, permissions: ['token:create'] });
    expect((await t.call('POST', '/tokens', { key: session.session_key, body: { type: 'token', data: 'x' } })).status).toBe(201);
    expect((await t.call('DELETE', `/applications/${app.body.id}`, { key: t.managementKey })).status).toBe(204);
    expect((await t.call('POST', '/tokens', { key: session.session_key, body: { type: 'token', data: 'x' } })).status).toBe(401);
  });
});

describe('History', () => {
  it('records who made and who authorized a session, and what was granted, never the session key or the nonce', async () => {
    const made = await t.call('POST', '/sessions', { key: publicKey, headers: { 'BT-TRACE-ID': 'session-made' } });
    const granted = await t.call('POST', '/sessions/authorize', {
      key: t.privateKey,
      body: { nonce: made.body.nonce, permissions: ['token:read'] },
      headers: { 'BT-TRACE-ID': 'session-granted' },
    });
    expect(granted.status).toBe(204);
    await t.engine.history.flush();
    const entries = await t.engine.history.list(50);
    const creation = entries.find((e) => e.trace_id === 'session-made')!;
    const grant = entries.find((e) => e.trace_id === 'session-granted')!;
    expect(creation.application_id).toBe(publicAppId);
    expect(grant.application_id).toBe(t.engine.bootstrapKeys!.private.application_id);
    expect(grant.details).toMatchObject({ session: creation.details!.session });
    expect(grant.request_body).toEqual({ nonce: `...${made.body.nonce.slice(-4)}`, permissions: ['token:read'], rules: [], expires_at: null });
    const kept = JSON.stringify(entries);
    expect(kept).not.toContain(made.body.session_key);
    expect(kept).not.toContain(made.body.nonce);
  });
});

describe('a restart', () => {
  it('keeps a session and what it was granted', async () => {
    const dataDir = tempDir();
    const first = await startTestEngine({ dataDir });
    const app = (await first.call('POST', '/applications', { key: first.managementKey, body: { name: 'fe', type: 'public', permissions: ['token:create'] } })).body;
    const session = (await first.call('POST', '/sessions', { key: app.key })).body;
    await first.call('POST', '/sessions/authorize', { key: first.privateKey, body: { nonce: session.nonce, permissions: ['token:create'] } });
    await first.stop();
    const again = await startTestEngine({ dataDir });
    try {
      expect((await again.call('POST', '/tokens', { key: session.session_key, body: { type: 'token', data: 'after restart' } })).status).toBe(201);
    } finally {
      await again.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
