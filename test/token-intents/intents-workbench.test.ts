import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveFeed, type LiveUpdate } from '../../electron/engine/workbench/live-feed';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** What the Tokens page reads of token intents through the workbench's methods, and how it converts one. */
let t: TestEngine;
let backendId: string;
let backend: string;

const PAN = '4242424242424242';

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true, echoPort: 0 });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'intents', type: 'private', permissions: ['token:create', 'token:read', 'token:use', 'token-intent:create', 'token-intent:delete'] },
  });
  backendId = app.body.id;
  backend = app.body.key;
});
afterAll(() => t.stop());

describe('the workbench on token intents', () => {
  it('lists the live intents, newest first, with their expiry and never their data', async () => {
    const first = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card', data: { number: PAN, expiration_month: 1, expiration_year: 2040, cvc: '321' } } });
    const second = await t.call('POST', '/token-intents', { key: backend, body: { type: 'social_security_number', data: '078-05-1120' } });
    const gone = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card_number', data: PAN } });
    await t.call('DELETE', `/token-intents/${gone.body.id}`, { key: backend });

    const listed = await t.workbench('listTokenIntents', {});
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.intents.map((i: { id: string }) => i.id)).toEqual([second.body.id, first.body.id]);
    expect(listed.body.intents[1]).toMatchObject({ type: 'card', card: { last4: '4242' }, expires_at: first.body.expires_at, created_by: backendId });
    expect(listed.text).not.toContain(PAN);
    expect(listed.text).not.toContain('078-05-1120');
  });

  it('converts an intent as an application through writeToken, which History records as that application’s', async () => {
    const created = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card_number', data: PAN } });
    const converted = await t.workbench('writeToken', { application_id: backendId, action: 'create', token: { token_intent_id: created.body.id } });
    expect(converted.status, converted.text).toBe(200);
    expect(converted.body).toMatchObject({ status: 201, problem: null });
    expect(converted.body.token_ids).toHaveLength(1);
    const listed = await t.workbench('listTokenIntents', {});
    expect(listed.body.intents.map((i: { id: string }) => i.id)).not.toContain(created.body.id);
  });

  it('tells the live road that the intents changed, so the page lists them again', async () => {
    const feed = new LiveFeed(t.engine.events, () => t.engine.status(), () => t.engine.transactions.counts(), (view) => view);
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    try {
      await t.call('POST', '/token-intents', { key: backend, body: { type: 'card_number', data: PAN } });
      await vi.waitFor(() => expect(updates.some((u) => u.type === 'update' && u.tokenIntents)).toBe(true));
      expect(JSON.stringify(updates)).not.toContain(PAN);
    } finally {
      stop();
    }
  });

  it('checks a Composer draft naming an intent as the proxy would: live is fine, gone is flagged', async () => {
    const created = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card_number', data: PAN } });
    const check = (id: string) =>
      t.workbench('checkRequest', {
        application_id: backendId,
        target_id: null,
        method: 'POST',
        path: '/proxy',
        headers: [['BT-PROXY-URL', t.engine.echoUrl!], ['Content-Type', 'application/json']],
        body: `{"n": "{{ token_intent: ${id} | json: '$.data' | last4 }}"}`,
      });
    const live = await check(created.body.id);
    expect(live.status, live.text).toBe(200);
    expect(live.body.flags.filter((flag: { severity: string }) => flag.severity === 'error')).toEqual([]);
    await t.call('DELETE', `/token-intents/${created.body.id}`, { key: backend });
    const gone = await check(created.body.id);
    expect(gone.body.flags.map((flag: { kind: string }) => flag.kind)).toContain('unknown_token');
  });

  it('previews an intent expression masked, as the Composer shows it on hover', async () => {
    const created = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card_number', data: PAN } });
    const body = `{"n": "{{ token_intent: ${created.body.id} | json: '$.data' | last4 }}"}`;
    const preview = await t.workbench('previewExpression', { application_id: backendId, content_type: 'application/json', body, at: 12 });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.problem ?? null).toBeNull();
    expect(preview.body.token).toMatchObject({ type: 'card_number', masked: 'XXXXXXXXXXXX4242' });
    expect(preview.text).not.toContain(PAN);
  });

  it('a wipe of the vault takes the token intents with it', async () => {
    const created = await t.call('POST', '/token-intents', { key: backend, body: { type: 'card_number', data: PAN } });
    expect((await t.workbench('wipeVault', { confirm: 'wipe' })).status).toBe(200);
    expect((await t.workbench('listTokenIntents', {})).body.intents).toEqual([]);
    expect(created.status).toBe(201);
  });
});
