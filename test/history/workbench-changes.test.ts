import { afterAll, beforeAll, expect, it } from 'vitest';
import { historyListSchema, type HistoryEntry } from '../../shared/workbench/history-contract';
import type { HistoryView } from '../../shared/workbench/history-filter';
import { PAGE_HEADER } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The audit trail of the workbench's own changes: Settings writes the vault and the engine's settings directly, not
 * through a request, and each change still leaves an entry saying who (the workbench and its page), what, when and
 * the outcome, in words; a key's secret never.
 */
let t: TestEngine;
let privateApp: string;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
  privateApp = (await t.call('GET', '/applications/key', { key: t.privateKey })).body.id;
});
afterAll(() => t.stop());

async function entries(view: HistoryView = 'all'): Promise<HistoryEntry[]> {
  await t.engine.history.flush();
  return historyListSchema.parse((await t.workbench('listHistory', { limit: 500, filter: { view } })).body);
}

/** One call as the Settings page makes it; answers its reply and the history entry it left (the newest). */
async function changed<T = any>(name: string, request: unknown, status = 200): Promise<{ reply: T; entry: HistoryEntry }> {
  const res = await t.workbench<T>(name, request, { headers: { [PAGE_HEADER]: 'settings' } });
  expect(res.status, `${name} ${JSON.stringify(res.body)}`).toBe(status);
  const [entry] = await entries();
  expect(entry).toMatchObject({ kind: 'workbench', status, application_id: null, workbench_page: 'settings' });
  expect(entry!.trace_id).toMatch(/^[0-9a-f-]{36}$/);
  return { reply: res.body, entry: entry! };
}

it('records creating, changing and deleting an application, and its keys, by id and name, never a key', async () => {
  const created = await changed('createApplication', { name: 'Checkout', type: 'private', permissions: ['token:create'], rules: [] });
  const app = created.reply.id as string;
  expect(created.entry).toMatchObject({ method: 'CREATE', path: `/applications/${app}`, change: { action: 'createApplication', summary: 'Created application “Checkout” (private)' } });

  const updated = await changed('updateApplication', { id: app, name: 'Checkout', permissions: ['token:create', 'token:read'], rules: [] });
  expect(updated.entry).toMatchObject({ method: 'UPDATE', path: `/applications/${app}`, change: { summary: 'Changed application “Checkout”: permissions' } });
  const renamed = await changed('updateApplication', { id: app, name: 'Checkout v2', permissions: ['token:create', 'token:read'], rules: [] });
  expect(renamed.entry.change?.summary).toBe('Changed application “Checkout v2”: name (was “Checkout”)');
  await changed('updateApplication', { id: app, name: 'Checkout', permissions: ['token:create', 'token:read'], rules: [] });

  const key = await changed('createApplicationKey', { application_id: app });
  expect(key.entry).toMatchObject({ method: 'CREATE', path: `/applications/${app}/keys/${key.reply.key.id}`, change: { summary: `Created key …${key.reply.key.key.slice(-4)} for application “Checkout”` } });
  expect(JSON.stringify(await entries())).not.toContain(key.reply.key.key);

  const revoked = await changed('revokeApplicationKey', { application_id: app, key_id: key.reply.key.id });
  expect(revoked.entry).toMatchObject({
    method: 'DELETE',
    path: `/applications/${app}/keys/${key.reply.key.id}`,
    change: { summary: `Revoked key …${key.reply.key.key.slice(-4)} of application “Checkout”` },
  });

  const deleted = await changed('deleteApplication', { application_id: app });
  expect(deleted.entry).toMatchObject({ method: 'DELETE', path: `/applications/${app}`, change: { summary: 'Deleted application “Checkout”' } });

  const har = (await t.workbench('exportHar', { ids: [deleted.entry.id] })).body;
  expect(har.log.entries[0]).toMatchObject({ request: { method: 'DELETE' }, _tokenbench: { kind: 'workbench', workbench_page: 'settings', change: deleted.entry.change } });
});

it('records a change that fails, with the status it failed with', async () => {
  const { entry } = await changed('deleteApplication', { application_id: 'no-such-app' }, 404);
  expect(entry).toMatchObject({ method: 'DELETE', path: '/applications/no-such-app', change: { summary: 'Could not delete application no-such-app' } });
});

it('records revoking the workbench key, and nothing when there was none to revoke', async () => {
  await t.workbench('sendRequest', { id: crypto.randomUUID(), application_id: privateApp, method: 'GET', path: '/tokens', headers: [], body: null });
  const listed = (await t.workbench<{ id: string; workbench_key: { key_last4: string } }[]>('listApplications', {})).body;
  const ending = listed.find((application) => application.id === privateApp)!.workbench_key.key_last4;
  const { entry } = await changed('revokeWorkbenchKey', { application_id: privateApp });
  expect(entry).toMatchObject({ method: 'DELETE', change: { summary: `Revoked the workbench's key …${ending} of application “Tokenbench backend”` } });
  const before = (await entries()).length;
  expect((await t.workbench('revokeWorkbenchKey', { application_id: privateApp })).status).toBe(200);
  expect(await entries()).toHaveLength(before);
});

it('records the limits, the retention, the keeping of answers and remote targets as the user set them, a remote key never', async () => {
  const limits = await changed('changeLimits', { maxExpressions: 7, proxyTimeoutMs: null });
  expect(limits.entry).toMatchObject({ method: 'UPDATE', path: '/settings/limits', change: { summary: "Changed the proxy's limits: proxyTimeoutMs default, maxExpressions 7" } });
  const retention = await changed('changeRetention', { historyLimit: 5000 });
  expect(retention.entry.change?.summary).toBe('Changed how much history is kept: historyLimit 5000');
  const answers = await changed('changeHistoryAnswers', { historyAnswers: true, historyAnswerBytes: 8192 });
  expect(answers.entry).toMatchObject({
    method: 'UPDATE',
    path: '/settings/history-answers',
    change: { summary: "Changed whether history keeps the destinations' answers: historyAnswers true, historyAnswerBytes 8192" },
  });

  const remoteKey = 'key_remote_secret_0123456789';
  const added = await changed('addRemoteTarget', { name: 'Staging', base_url: t.engine.url, api_key: remoteKey });
  expect(added.entry).toMatchObject({ method: 'CREATE', path: `/remote-targets/${added.reply.id}`, change: { summary: `Added remote target “Staging” at ${added.reply.base_url}` } });
  const removed = await changed('deleteRemoteTarget', { id: added.reply.id });
  expect(removed.entry.change?.summary).toBe('Deleted remote target “Staging”');
  expect(JSON.stringify(await entries())).not.toContain(remoteKey);
});

it('records saving, moving and deleting a saved request, by collection and name', async () => {
  const request = { kind: 'api', method: 'GET', target: '/tokens', headers: [], service: { transaction: '', trace: '', keepAlive: '', connection: '' }, bodyMode: 'none', body: '' };
  const saved = await changed('saveRequest', { collection: 'Payments', name: 'List cards', request });
  expect(saved.entry).toMatchObject({ method: 'SAVE', path: '/collections/Payments/List cards', change: { summary: 'Saved request “List cards” of collection “Payments”' } });
  const moved = await changed('moveRequest', { from: { collection: 'Payments', name: 'List cards' }, to: { collection: 'Cards', name: 'All' } });
  expect(moved.entry).toMatchObject({ method: 'MOVE', path: '/collections/Cards/All', change: { summary: 'Moved saved request “List cards” of collection “Payments” to “All” of collection “Cards”' } });
  const deleted = await changed('deleteRequest', { collection: 'Cards', name: 'All' });
  expect(deleted.entry).toMatchObject({ method: 'DELETE', path: '/collections/Cards/All', change: { summary: 'Deleted saved request “All” of collection “Cards”' } });
  const refused = await changed('deleteRequest', { collection: 'Cards', name: 'All' }, 404);
  expect(refused.entry.change?.summary).toBe('Could not delete saved request “All” of collection “Cards”');
});

it('records a seed applied, not a seed only planned', async () => {
  const { seed } = (await t.workbench('exportSeed', { include_tokens: false })).body;
  const before = (await entries()).length;
  expect((await t.workbench('importSeed', { seed, apply: false })).status).toBe(200);
  expect(await entries()).toHaveLength(before);
  const { entry } = await changed('importSeed', { seed, apply: true });
  expect(entry).toMatchObject({ method: 'IMPORT', path: '/seed', change: { summary: expect.stringMatching(/^Imported a seed file: 0 created, \d+ unchanged, 0 in conflict$/) } });
});

it('lists changes and reveals apart, and finds a change by the words of its summary', async () => {
  const card = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: '4242424242424242' } })).body.id;
  expect((await t.workbench('revealToken', { application_id: privateApp, token_id: card })).status).toBe(200);
  expect((await entries('reveals')).map((e) => [e.method, e.reveal?.target])).toEqual([
    ['REVEAL', 'token'],
    ['REVEAL', 'seed'],
  ]);
  const changes = await entries('changes');
  expect(changes.length).toBeGreaterThan(5);
  expect(changes.every((e) => e.kind === 'workbench' && e.method !== 'REVEAL')).toBe(true);
  const found = historyListSchema.parse((await t.workbench('listHistory', { limit: 500, filter: { text: 'checkout' } })).body);
  expect(found.map((e) => e.change?.action)).toEqual(['deleteApplication', 'revokeApplicationKey', 'createApplicationKey', 'updateApplication', 'updateApplication', 'updateApplication', 'createApplication']);
});

it('records a wipe with what it removed, and a cleared history keeps the one entry saying so', async () => {
  const { entry } = await changed('wipeVault', { confirm: 'wipe' });
  expect(entry).toMatchObject({ method: 'WIPE', path: '/vault', change: { summary: expect.stringMatching(/^Wiped the vault: 1 token, 0 transactions and \d+ applications removed$/) } });
  const cleared = await changed('clearHistory', {});
  expect(cleared.entry).toMatchObject({ method: 'CLEAR', path: '/history', change: { summary: expect.stringMatching(/^Cleared the history: \d+ entries$/) } });
  expect(await entries()).toHaveLength(1);
});
