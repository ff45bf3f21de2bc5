import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Exchange } from '../../shared/workbench/composer-contract';
import { historyListSchema, type HistoryEntry } from '../../shared/workbench/history-contract';
import type { PageId } from '../../shared/workbench/pages';
import { PAGE_HEADER } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The audit trail: every route family leaves an entry saying who (the application, or the workbench itself and the
 * page it acted on), what (method and path), when, the outcome, the trace id the caller got and the transaction it
 * enlisted in; token data masked. One case per family, each found by its trace id.
 */
const PAN = '4242424242424242';

let t: TestEngine;
let privateApp: string;
let managementApp: string;
let card: string;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
  privateApp = (await t.call('GET', '/applications/key', { key: t.privateKey })).body.id;
  managementApp = (await t.call('GET', '/applications/key', { key: t.managementKey })).body.id;
  card = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: PAN } })).body.id;
});
afterAll(() => t.stop());

async function entries(): Promise<HistoryEntry[]> {
  await t.engine.history.flush();
  return historyListSchema.parse((await t.workbench('listHistory', { limit: 500 })).body);
}

/** Sends one request of a family and answers the trace id its caller got. */
async function traced(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ trace: string; status: number }> {
  const res = await t.call(method, path, { key, body, headers });
  return { trace: res.headers['bt-trace-id'] as string, status: res.status };
}

it.each([
  ['tokens: create', () => traced('POST', '/tokens', t.privateKey, { type: 'card_number', data: PAN }), 'api', 'POST', '/tokens'],
  ['tokens: read', () => traced('GET', `/tokens/${card}`, t.privateKey), 'api', 'GET', () => `/tokens/${card}`],
  ['tokens: change', () => traced('PATCH', `/tokens/${card}`, t.privateKey, { metadata: { a: 'b' } }, { 'content-type': 'application/merge-patch+json' }), 'api', 'PATCH', () => `/tokens/${card}`],
  ['tokens: refused', () => traced('DELETE', '/tokens/no-such-token', t.privateKey), 'api', 'DELETE', '/tokens/no-such-token'],
  ['tokenize', () => traced('POST', '/tokenize', t.privateKey, { card: { type: 'card_number', data: PAN } }), 'api', 'POST', '/tokenize'],
  ['detokenize', () => traced('POST', '/detokenize', t.privateKey, { pan: `{{ ${card} }}` }), 'api', 'POST', '/detokenize'],
  ['search', () => traced('POST', '/v2/tokens/search', t.privateKey, { query: 'type:card_number' }), 'api', 'POST', '/v2/tokens/search'],
  ['applications', () => traced('POST', '/applications', t.managementKey, { name: 'audited', type: 'private', permissions: ['token:read'] }), 'api', 'POST', '/applications'],
  ['proxy', () => traced('POST', '/proxy/v1/charges', t.privateKey, { pan: `{{ ${card} }}` }, { 'BT-PROXY-URL': t.engine.echoUrl! }), 'proxy', 'POST', '/proxy/v1/charges'],
])('records %s with who, what, when, outcome and trace id, masked', async (_family, send, kind, method, path) => {
  const sentAt = Date.now();
  const { trace, status } = await send();
  expect(trace).toMatch(/^[0-9a-f-]{36}$/);
  const entry = (await entries()).find((e) => e.trace_id === trace);
  expect(entry, `an entry with trace id ${trace}`).toBeDefined();
  expect(entry).toMatchObject({
    kind,
    method,
    path: typeof path === 'function' ? path() : path,
    status,
    application_id: method === 'POST' && path === '/applications' ? managementApp : privateApp,
    transaction_id: null,
  });
  expect(Date.parse(entry!.at)).toBeGreaterThanOrEqual(sentAt - 1000);
  expect(JSON.stringify(entry)).not.toContain(PAN);
});

it('records a transaction, its enlisted writes with its id, and its commit', async () => {
  const opened = await traced('POST', '/transactions', t.privateKey);
  const id = (await entries()).find((e) => e.trace_id === opened.trace)!;
  expect(id).toMatchObject({ method: 'POST', path: '/transactions', status: 201, application_id: privateApp });
  const transaction = (await t.call('GET', '/transactions', { key: t.privateKey })).body;
  const txId: string = Array.isArray(transaction) ? transaction[0]?.id : (await t.engine.workbench.listTransactions({ limit: 1 })).transactions[0].id;
  const enlisted = await traced('POST', '/tokens', t.privateKey, { type: 'card_number', data: PAN }, { 'BT-TRANSACTION-ID': txId });
  const committed = await traced('POST', `/transactions/${txId}/commit`, t.privateKey);
  const all = await entries();
  expect(all.find((e) => e.trace_id === enlisted.trace)).toMatchObject({ status: 201, application_id: privateApp, transaction_id: txId });
  expect(all.find((e) => e.trace_id === committed.trace)).toMatchObject({ path: `/transactions/${txId}/commit`, status: 200, application_id: privateApp });
  expect(JSON.stringify(all)).not.toContain(PAN);
});

it('records a reveal in the workbench as the workbench acting as the application, by the token id, never the value', async () => {
  const sentAt = Date.now();
  expect((await t.workbench('revealToken', { application_id: privateApp, token_id: card })).status).toBe(200);
  const reveal = (await entries()).find((e) => e.kind === 'workbench' && e.path === `/tokens/${card}`);
  expect(reveal).toMatchObject({ method: 'REVEAL', status: 200, application_id: privateApp, reveal: { target: 'token', token_id: card, application_id: privateApp } });
  expect(reveal!.trace_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(reveal!.transaction_id).toBeNull();
  expect(Date.parse(reveal!.at)).toBeGreaterThanOrEqual(sentAt - 1000);
  expect(JSON.stringify(reveal)).not.toContain(PAN);
});

/** A workbench call over HTTP as the browser workbench makes it on a page (none: an older client's, naming no page). */
async function onPage<T = any>(page: PageId | null, name: string, request: unknown): Promise<T> {
  const res = await t.workbench<T>(name, request, { headers: page === null ? {} : { [PAGE_HEADER]: page } });
  expect(res.status, `${name} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/**
 * A request the Composer (or a page calling the vault as it does) sends as the private application; answers the trace id
 * its answer carried, as a user reads it (the exchange's entry is only waited for a while, which a loaded machine may miss).
 */
async function sent(page: PageId | null, method: string, path: string, body?: unknown, headers: [string, string][] = []): Promise<string> {
  const exchange = await onPage<Exchange>(page, 'sendRequest', {
    id: crypto.randomUUID(),
    application_id: privateApp,
    method,
    path,
    headers: body === undefined ? headers : [...headers, ['Content-Type', 'application/json']],
    body: body === undefined ? null : JSON.stringify(body),
  });
  const trace = exchange.outcome.kind === 'response' ? exchange.outcome.headers.find(([name]) => name.toLowerCase() === 'bt-trace-id')?.[1] : undefined;
  expect(trace, `${method} ${path}: ${JSON.stringify(exchange.outcome)}`).toBeDefined();
  return trace!;
}

const byTrace = async (trace: string) => (await entries()).find((e) => e.trace_id === trace)!;

it.each([
  ['the Composer sending to the API', () => sent('composer', 'POST', '/tokens', { type: 'card_number', data: PAN }), 'composer', 'api'],
  ['the Composer sending through the proxy', () => sent('composer', 'POST', '/proxy', { pan: `{{ ${card} }}` }, [['BT-PROXY-URL', t.engine.echoUrl!]]), 'composer', 'proxy'],
  ['the Tokens page writing a token', async () => (await onPage('tokens', 'writeToken', { action: 'update', application_id: privateApp, token_id: card, patch: { metadata: { seen: 'yes' } } })).trace_id, 'tokens', 'api'],
  ['the Transactions page calling the vault', () => sent('transactions', 'POST', '/transactions'), 'transactions', 'api'],
  ['the History page replaying a request', () => sent('history', 'GET', `/tokens/${card}`), 'history', 'api'],
  ['a call that names no page', () => sent(null, 'GET', `/tokens/${card}`), null, 'api'],
] as const)('records %s as that page of the workbench, acting as the application', async (_case, send, page, kind) => {
  const entry = await byTrace(await send());
  expect(entry).toMatchObject({ kind, application_id: privateApp, workbench_page: page });
  expect(JSON.stringify(entry)).not.toContain(PAN);
});

it('records the Transactions page opening, enlisting in and committing a transaction, each with its page', async () => {
  const openedTrace = await sent('transactions', 'POST', '/transactions');
  const opened = await byTrace(openedTrace);
  const txId = opened.transaction_id!;
  const write = await onPage('tokens', 'writeToken', { action: 'create', application_id: privateApp, transaction_id: txId, token: { type: 'card_number', data: PAN } });
  const committed = await sent('transactions', 'POST', `/transactions/${txId}/commit`);
  expect(opened).toMatchObject({ path: '/transactions', status: 201, workbench_page: 'transactions' });
  expect(await byTrace(write.trace_id)).toMatchObject({ status: 201, transaction_id: txId, workbench_page: 'tokens' });
  expect(await byTrace(committed)).toMatchObject({ path: `/transactions/${txId}/commit`, status: 200, workbench_page: 'transactions' });
});

it('records each reveal with the page it was done on', async () => {
  await onPage('tokens', 'revealToken', { application_id: privateApp, token_id: card });
  const proxied = await byTrace(await sent('composer', 'POST', '/proxy', { pan: `{{ ${card} }}` }, [['BT-PROXY-URL', t.engine.echoUrl!]]));
  await onPage('history', 'revealOutbound', { id: proxied.id });
  const reveals = (await entries()).filter((e) => e.kind === 'workbench');
  expect(reveals.find((e) => e.reveal?.target === 'token')).toMatchObject({ path: `/tokens/${card}`, workbench_page: 'tokens' });
  expect(reveals.find((e) => e.reveal?.target === 'outbound' && e.reveal.entry_id === proxied.id)).toMatchObject({ status: 200, workbench_page: 'history' });
});

it('never records an outside client as the workbench, whatever headers it sends', async () => {
  const session = t.engine.browserWorkbench!.session;
  const posing = { [PAGE_HEADER]: 'tokens', 'X-Tokenbench-Session': session };
  const api = await traced('DELETE', `/tokens/${card}`, t.privateKey, undefined, posing);
  const proxy = await traced('POST', '/proxy', t.privateKey, { pan: `{{ ${card} }}` }, { ...posing, 'BT-PROXY-URL': t.engine.echoUrl! });
  for (const { trace } of [api, proxy]) {
    const entry = await byTrace(trace);
    expect(entry.application_id).toBe(privateApp);
    expect(entry).not.toHaveProperty('workbench_page');
  }
});

it('tells the workbench from outside clients sending at the same moment, each entry by its own connection', async () => {
  const workbench = Array.from({ length: 5 }, () => sent('composer', 'GET', `/tokens/${card}`));
  const outside = Array.from({ length: 5 }, () => traced('GET', `/tokens/${card}`, t.privateKey, undefined, { [PAGE_HEADER]: 'composer' }));
  const [ours, theirs] = await Promise.all([Promise.all(workbench), Promise.all(outside)]);
  const all = await entries();
  for (const trace of ours) expect(all.find((e) => e.trace_id === trace)).toMatchObject({ workbench_page: 'composer' });
  for (const { trace } of theirs) expect(all.find((e) => e.trace_id === trace)).not.toHaveProperty('workbench_page');
});
