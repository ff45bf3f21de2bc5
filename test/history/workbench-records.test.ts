import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SavedRequest } from '../../shared/workbench/collection-contract';
import { historyListSchema, type HistoryEntry } from '../../shared/workbench/history-contract';
import { isCall, METHOD_NAMES, WORKBENCH_METHODS, type ChangeName, type RequestInput, type RevealName } from '../../shared/workbench/methods';
import type { PageId } from '../../shared/workbench/pages';
import { PAGE_HEADER } from '../../shared/workbench/transport';
import { actionRecorder } from '../../electron/engine/workbench/workbench-actions';
import { recordingActions, WORKBENCH_RECORDS, type RecordFacts, type WorkbenchRecords } from '../../electron/engine/workbench/workbench-records';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * Every row of the method table that changes or reveals, called for real: each leaves a history entry made on the
 * page that called it (the workbench's own, or the request it sent through the front door), and none holds a secret.
 */
const PAN = '4242424242424242';
const REMOTE_KEY = 'key_remote_never_in_history_0123456789';
/** Secret values, a set one and one a pasted command carries: never in history. */
const SECRET_VALUE = 'sk_test_secret_never_in_history';
const PASTED_VALUE = 'sk_test_pasted_never_in_history';
/** A whole key as the engine makes them (key_local_ and 43 characters); history may hold four of them, never more. */
const WHOLE_KEY = /key_local_[\w-]{12,}/;
/** A workbench credential's secret (tbw_ and 43 characters): never in history, not even in part. */
const WHOLE_CREDENTIAL = /tbw_[\w-]{4,}/;

let t: TestEngine;
let backend: string;
let card: string;
/** A destination that answers nothing: a request to it stays in flight until cancelled. */
let silent: Server;
const heard: (() => void)[] = [];
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true, keepWelcome: true });
  backend = t.engine.bootstrapKeys!.private.application_id;
  card = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: PAN } })).body.id;
  silent = createServer(() => heard.shift()?.());
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  silent.closeAllConnections();
  silent.close();
  await t.stop();
});

async function entries(): Promise<HistoryEntry[]> {
  await t.engine.history.flush();
  return historyListSchema.parse((await t.workbench('listHistory', { limit: 500 })).body);
}

const saved: SavedRequest = {
  kind: 'api',
  method: 'GET',
  target: '/tokens',
  headers: [],
  service: { transaction: '', trace: '', keepAlive: '', connection: '' },
  bodyMode: 'none',
  body: '',
};
const composed = (path = '/tokens', headers: [string, string][] = []) => ({ id: crypto.randomUUID(), application_id: backend, method: 'GET' as const, path, headers, body: null });
const model = () => t.engine.workbench;

type Recorded = ChangeName | RevealName;
/** How each recorded method is called for real: what it needs first, then its request; after: what settles it. */
interface Fixture<N extends Recorded> {
  request: () => Promise<RequestInput<N>> | RequestInput<N>;
  page?: PageId;
  after?: () => Promise<unknown>;
}
/** A request the proxy detokenized a card into, sent to the echo destination: by its history entry's id. */
async function proxiedToEcho() {
  const exchange = await model().sendRequest({ ...composed('/proxy', [['BT-PROXY-URL', t.engine.echoUrl!]]), method: 'POST', body: `{"pan": "{{ ${card} }}"}` });
  return { id: exchange.entry!.id };
}
const proxyDefinition = (name: string) => ({
  name,
  destination_url: t.engine.echoUrl!,
  request_transforms: [],
  response_transforms: [],
  application_id: null,
  configuration: {},
  require_auth: true,
  disable_detokenization: false,
});
const reactorDefinition = (name: string) => ({ name, code: 'module.exports = async (req) => ({ raw: req.args });', configuration: {}, application_id: null, runtime: null });
const webhookDefinition = (name: string) => ({ name, url: `${t.engine.echoUrl!}/hooks`, notify_email: null, events: ['token.created'] });
/** One webhook for the deliveries' records, made on first use: a tenant may have only five. */
let delivered: string | undefined;
const webhookToDeliver = async () => (delivered ??= (await model().createWebhook(webhookDefinition('Delivered to'))).id);
let cancelled: Promise<unknown> = Promise.resolve();
let proxies: string | undefined;
const proxiesFolder = () => (proxies ??= tempDir('tokenbench-proxies-'));
const FIXTURES: { [N in Recorded]: Fixture<N> } = {
  revealOutbound: { page: 'history', request: proxiedToEcho },
  revealAnswer: { page: 'composer', request: proxiedToEcho },
  sendRequest: { page: 'composer', request: () => composed() },
  cancelRequest: {
    page: 'composer',
    async request() {
      const request = composed('/proxy', [['BT-PROXY-URL', `http://127.0.0.1:${(silent.address() as AddressInfo).port}`]]);
      const arrived = new Promise<void>((resolve) => heard.push(resolve));
      cancelled = Promise.resolve(model().sendRequest(request, 'composer'));
      await arrived;
      return { id: request.id };
    },
    after: () => cancelled,
  },
  revokeWorkbenchKey: {
    page: 'composer',
    async request() {
      await model().sendRequest(composed());
      return { application_id: backend };
    },
  },
  addRemoteTarget: { request: () => ({ name: 'Staging', base_url: t.url, api_key: REMOTE_KEY }) },
  deleteRemoteTarget: { request: async () => ({ id: (await model().addRemoteTarget({ name: 'Gone', base_url: t.url, api_key: REMOTE_KEY })).id }) },
  requestSnippet: { page: 'composer', request: () => ({ application_id: backend, method: 'GET', path: '/tokens', headers: [], body: null, format: 'curl', include_key: true }) },
  saveRequest: { page: 'composer', request: () => ({ collection: 'Audit', name: 'List tokens', request: saved }) },
  moveRequest: {
    page: 'composer',
    async request() {
      await model().saveRequest({ collection: 'Audit', name: 'To move', request: saved, overwrite: false, send_as: null });
      return { from: { collection: 'Audit', name: 'To move' }, to: { collection: 'Moved', name: 'Moved here' } };
    },
  },
  deleteRequest: {
    page: 'composer',
    async request() {
      await model().saveRequest({ collection: 'Audit', name: 'To delete', request: saved, overwrite: false, send_as: null });
      return { collection: 'Audit', name: 'To delete' };
    },
  },
  importRequests: { page: 'composer', request: () => ({ text: `curl https://api.example.com/v1/charges -H 'Authorization: Bearer ${PASTED_VALUE}'` }) },
  importPostman: {
    page: 'composer',
    request: () => ({
      collection: JSON.stringify({
        info: { name: 'Audited Postman', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
        item: [{ name: 'Charge', request: { method: 'POST', url: 'https://api.example.com/v1/charges', header: [{ key: 'Authorization', value: `Bearer ${PASTED_VALUE}` }] } }],
      }),
      environment: JSON.stringify({ name: 'Audited', values: [{ key: 'API_TOKEN', value: SECRET_VALUE, type: 'secret', enabled: true }] }),
    }),
  },
  saveEnvironment: { request: () => ({ name: 'audit-save', variables: [{ name: 'HOST', value: 'api.example.com' }, { name: 'TOKEN', value: SECRET_VALUE, secret: true }] }) },
  deleteEnvironment: {
    async request() {
      await model().saveEnvironment({ name: 'audit-delete', variables: [] });
      return { name: 'audit-delete' };
    },
  },
  setActiveEnvironment: {
    page: 'composer',
    async request() {
      await model().saveEnvironment({ name: 'audit-active', variables: [] });
      return { name: 'audit-active' };
    },
  },
  setCollectionsFolder: { request: () => ({ folder: null }) },
  setProxiesFolder: { request: () => ({ folder: proxiesFolder() }) },
  exportProxyToFiles: {
    async request() {
      await model().setProxiesFolder({ folder: proxiesFolder() });
      const made = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'audit export', destination_url: 'https://example.com', configuration: { API_KEY: SECRET_VALUE } } });
      return { id: made.body.id };
    },
  },
  importProxyToFiles: {
    async request() {
      await model().setProxiesFolder({ folder: proxiesFolder() });
      return { json: JSON.stringify({ name: 'audit import', destination_url: 'https://example.com', configuration: { client_secret: SECRET_VALUE } }) };
    },
  },
  exportReactorToFiles: {
    async request() {
      await model().setProxiesFolder({ folder: proxiesFolder() });
      const made = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'audit reactor export', code: 'module.exports = async () => ({});', configuration: { API_KEY: SECRET_VALUE } } });
      return { id: made.body.id };
    },
  },
  importReactorToFiles: {
    async request() {
      await model().setProxiesFolder({ folder: proxiesFolder() });
      return { json: JSON.stringify({ name: 'audit reactor import', code: 'module.exports = async () => ({});', configuration: { client_secret: SECRET_VALUE } }) };
    },
  },
  setSecret: { request: () => ({ name: 'audit-set', value: SECRET_VALUE }) },
  deleteSecret: {
    async request() {
      await model().setSecret({ name: 'audit-delete', value: SECRET_VALUE });
      return { name: 'audit-delete' };
    },
  },
  revealSecret: {
    async request() {
      await model().setSecret({ name: 'audit-reveal', value: SECRET_VALUE });
      return { name: 'audit-reveal' };
    },
  },
  createApplication: { request: () => ({ name: 'Audited', type: 'private', permissions: ['token:read'], rules: [] }) },
  updateApplication: {
    async request() {
      const { id } = await model().createApplication({ name: 'To change', type: 'private', permissions: [], rules: [] });
      return { id, name: 'Changed', permissions: ['token:read'], rules: [] };
    },
  },
  deleteApplication: { request: async () => ({ application_id: (await model().createApplication({ name: 'To delete', type: 'private', permissions: [], rules: [] })).id }) },
  createApplicationKey: { request: () => ({ application_id: backend }) },
  revokeApplicationKey: { request: async () => ({ application_id: backend, key_id: (await model().createApplicationKey({ application_id: backend })).key.id }) },
  exportSeed: { request: () => ({ include_tokens: true }) },
  importSeed: { request: async () => ({ seed: (await model().exportSeed({ include_tokens: false })).seed, apply: true }) },
  wipeVault: { request: () => ({ confirm: 'wipe' }) },
  takeWelcome: { page: 'composer', request: () => ({}) },
  changeLimits: { request: () => ({ maxExpressions: 7 }) },
  changeRetention: { request: () => ({ historyLimit: 5000 }) },
  changeHistoryAnswers: { request: () => ({ historyAnswers: true }) },
  changeTokenIntentTtl: { request: () => ({ tokenIntentTtlSeconds: 3600 }) },
  clearHistory: { page: 'history', request: () => ({}) },
  createProxy: { page: 'proxies', request: () => proxyDefinition('Audited proxy') },
  updateProxy: { page: 'proxies', request: async () => ({ id: (await model().createProxy(proxyDefinition('To change'))).id, ...proxyDefinition('Changed') }) },
  deleteProxy: { page: 'proxies', request: async () => ({ id: (await model().createProxy(proxyDefinition('To delete'))).id }) },
  tryProxy: {
    page: 'proxies',
    request: async () => ({ ...composed(), request_id: crypto.randomUUID(), id: (await model().createProxy(proxyDefinition('To try'))).id, method: 'POST', path: '/', body: `{"pan": "{{ ${card} }}"}` }),
  },
  createClientKey: { request: () => ({}) },
  deleteClientKey: { request: async () => ({ key_id: (await model().createClientKey({})).key.key_id }) },
  revokeSession: {
    async request() {
      const front = await model().createApplication({ name: 'Front end', type: 'public', permissions: ['token:create'], rules: [] });
      const { key } = await model().createApplicationKey({ application_id: front.id });
      await t.call('POST', '/sessions', { key: key.key });
      return { id: (await model().listSessions({})).at(-1)!.id };
    },
  },
  createReactor: { page: 'reactors', request: () => reactorDefinition('Audited reactor') },
  updateReactor: { page: 'reactors', request: async () => ({ id: (await model().createReactor(reactorDefinition('To change'))).id, ...reactorDefinition('Changed') }) },
  deleteReactor: { page: 'reactors', request: async () => ({ id: (await model().createReactor(reactorDefinition('To delete'))).id }) },
  tryReactor: {
    page: 'reactors',
    request: async () => ({ request_id: crypto.randomUUID(), application_id: backend, id: (await model().createReactor(reactorDefinition('To try'))).id, args: `{"pan": "{{ ${card} }}"}` }),
  },
  tryReactorResult: {
    page: 'reactors',
    async request() {
      const id = (await model().createReactor(reactorDefinition('To try later'))).id;
      const accepted = await model().tryReactor({ request_id: crypto.randomUUID(), application_id: backend, id, args: '{}', async: true }, 'reactors');
      const header = (name: string) => (accepted.outcome.kind === 'response' ? accepted.outcome.headers.find(([n]) => n.toLowerCase() === name)![1] : '');
      const body = accepted.outcome.kind === 'response' ? JSON.parse(Buffer.from(accepted.outcome.body_base64, 'base64').toString('utf8')) : {};
      return { request_id: crypto.randomUUID(), application_id: backend, id, result_id: body.asyncReactorRequestId, trace_id: header('bt-trace-id') };
    },
  },
  createWebhook: { request: () => webhookDefinition('Audited webhook') },
  updateWebhook: { request: async () => ({ id: (await model().createWebhook(webhookDefinition('To change'))).id, ...webhookDefinition('Changed'), status: 'enabled' as const }) },
  deleteWebhook: { request: async () => ({ id: (await model().createWebhook(webhookDefinition('To delete'))).id }) },
  sendWebhookTest: { request: async () => ({ id: await webhookToDeliver() }) },
  redeliverWebhook: { request: async () => ({ delivery_id: (await model().sendWebhookTest({ id: await webhookToDeliver() })).id }) },
  changeLogRetention: { request: () => ({ logRetentionHours: 48 }) },
  revealToken: { page: 'tokens', request: () => ({ application_id: backend, token_id: card }) },
  writeToken: { page: 'tokens', request: () => ({ action: 'create', application_id: backend, token: { type: 'card_number', data: PAN } }) },
  updateTenant: {
    page: 'settings',
    request: () => ({
      name: 'Audited tenant',
      settings: { deduplicate_tokens: 'true', token_deduplication_behavior: 'read_existing', fingerprint_tokens: 'true', disable_ephemeral_proxy: 'false' },
    }),
  },
  changeTenantDelete: { page: 'settings', request: () => ({ allowTenantDelete: true }) },
  createCredential: { request: () => ({ name: 'audited person' }) },
  revokeCredential: { request: async () => ({ name: (await model().createCredential({ name: 'to revoke' })).credential.name }) },
};

/** The destructive ones last, so the others find the vault and history they need. */
const LAST = ['wipeVault', 'clearHistory'];
const recorded = METHOD_NAMES.filter((name) => isCall(name) && WORKBENCH_METHODS[name].effect !== 'read').sort(
  (a, b) => LAST.indexOf(a) - LAST.indexOf(b),
) as Recorded[];

it('knows how to call every method that changes or reveals', () => {
  expect(recorded.length).toBeGreaterThan(20);
  expect(Object.keys(FIXTURES).sort()).toEqual([...recorded].sort());
});

it.each(recorded)('records %s in history, with its page, and no secret', async (name) => {
  const fixture = FIXTURES[name] as Fixture<Recorded>;
  const request = await fixture.request();
  const page = fixture.page ?? 'settings';
  const before = new Set((await entries()).map((entry) => entry.id));
  const res = await t.workbench(name, request, { headers: { [PAGE_HEADER]: page } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await fixture.after?.();
  const added = (await entries()).filter((entry) => !before.has(entry.id));
  expect(added.filter((entry) => entry.workbench_page === page), `${name} left no entry of page ${page}`).not.toHaveLength(0);
  const kept = JSON.stringify(added);
  expect(kept).not.toContain(PAN);
  for (const secret of [REMOTE_KEY, SECRET_VALUE, PASTED_VALUE]) expect(kept).not.toContain(secret);
  expect(kept).not.toMatch(WHOLE_KEY);
  expect(kept).not.toMatch(WHOLE_CREDENTIAL);
});

it('refuses to build the model when a change or reveal has no history record, or a read has one, naming the method', () => {
  const build = (records: Partial<WorkbenchRecords> & Record<string, unknown>) =>
    // Nothing is recorded while the model is built: only its records are read.
    () => recordingActions(t.engine.workbench, actionRecorder(t.engine.history), {} as RecordFacts, records as WorkbenchRecords);
  const { exportSeed: _reveal, ...noExport } = WORKBENCH_RECORDS;
  // @ts-expect-error -- the type asks for a record of every change and reveal: tsc refuses this before a test runs.
  const incomplete: WorkbenchRecords = noExport;
  expect(build(incomplete)).toThrow('Workbench method exportSeed reveals, but has no history record');
  const { wipeVault: _change, ...noWipe } = WORKBENCH_RECORDS;
  expect(build({ ...noWipe, wipeVault: undefined })).toThrow('Workbench method wipeVault changes, but has no history record');
  expect(build({ ...WORKBENCH_RECORDS, getStatus: () => null })).toThrow('Workbench method getStatus is a read in the method table, yet has a history record');
  expect(build(WORKBENCH_RECORDS)).not.toThrow();
});
