import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callMethod } from '../../electron/engine';
import { historyListSchema } from '../../shared/workbench/history-contract';
import type { HistoryFilterInput } from '../../shared/workbench/history-filter';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** The history's filters, run by the engine over every kept entry, through the workbench's listHistory. */
let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
});
afterEach(() => t.stop());

async function listed(filter: HistoryFilterInput, limit = 100, before?: string) {
  await t.engine.history.flush();
  return historyListSchema.parse(await callMethod(t.engine.workbench, 'listHistory', { limit, before, filter }));
}
const traces = async (filter: HistoryFilterInput) => (await listed(filter)).map((entry) => entry.trace_id);
const call = (method: string, path: string, trace: string, options: { body?: unknown; headers?: Record<string, string>; key?: string } = {}) =>
  t.call(method, path, { key: options.key ?? t.privateKey, body: options.body, headers: { 'BT-TRACE-ID': trace, ...options.headers } });

describe('filtering the history in the engine', () => {
  it('by what failed and who failed it, by text, by application and by token', async () => {
    const card = await call('POST', '/tokens', 'create', { body: { type: 'card_number', data: '4242424242424242' } });
    const echo = { 'BT-PROXY-URL': t.engine.echoUrl! };
    await call('POST', '/proxy', 'proxied-ok', { body: { pan: `{{ ${card.body.id} }}` }, headers: echo });
    await call('POST', '/proxy/status/503', 'destination-503', { body: {}, headers: echo });
    await call('POST', '/proxy', 'proxy-400', { body: { pan: '{{ nope }}' }, headers: echo });
    await call('GET', `/tokens/${card.body.id}`, 'read-card');
    await call('GET', '/tokens/missing', 'read-404', { key: t.managementKey });

    expect(await traces({ view: 'proxy-errors' })).toEqual(['proxy-400']);
    expect(await traces({ view: 'destination-errors' })).toEqual(['destination-503']);
    expect(await traces({ view: 'failed' })).toEqual(['read-404', 'proxy-400', 'destination-503']);
    expect(await traces({ view: 'warnings' })).toEqual(['proxy-400', 'destination-503', 'proxied-ok']);
    expect(await traces({ text: 'STATUS/503' })).toEqual(['destination-503']);
    expect(await traces({ application_id: t.engine.bootstrapKeys!.management.application_id })).toEqual(['read-404']);
    expect(await traces({ token_id: card.body.id })).toEqual(['read-card', 'proxied-ok']);
    expect(await traces({ view: 'proxy', token_id: card.body.id })).toEqual(['proxied-ok']);
    // A filter that is refused says which field.
    await expect(callMethod(t.engine.workbench, 'listHistory', { filter: { view: 'everything' } })).rejects.toMatchObject({
      status: 400,
      errors: { 'filter.view': [expect.any(String)] },
    });
  });

  it('by transaction: what worked in it, its creation and its commit, never a refused attempt', async () => {
    const opened = await call('POST', '/transactions', 'open');
    const tx = { 'BT-TRANSACTION-ID': opened.body.id };
    await call('POST', '/tokens', 'staged', { body: { type: 'token', data: 'x' }, headers: tx });
    await call('POST', '/tokens', 'outside', { body: { type: 'token', data: 'y' } });
    await call('POST', `/transactions/${opened.body.id}/commit`, 'commit');
    await call('POST', '/tokens', 'too-late', { body: { type: 'token', data: 'z' }, headers: tx });
    expect(await traces({ transaction_id: opened.body.id })).toEqual(['commit', 'staged', 'open']);
    const [late] = await listed({ text: 'too-late' });
    expect(late.status).toBe(409);
    expect(late.transaction_id).toBeNull();
  });

  it('by text, the workbench page that sent a request ("Tokens page"), or the workbench as a whole', async () => {
    const applicationId = t.engine.bootstrapKeys!.private.application_id;
    const sendFrom = (page: string | undefined, trace: string) =>
      callMethod(t.engine.workbench, 'sendRequest', { id: trace, application_id: applicationId, method: 'GET', path: '/tokens', headers: [['BT-TRACE-ID', trace]], body: null }, page);
    await sendFrom('tokens', 'from-tokens');
    await sendFrom('composer', 'from-composer');
    await sendFrom(undefined, 'unnamed');
    await call('GET', '/tokens', 'from-a-client', { headers: { 'X-Tokenbench-Page': 'tokens' } });
    // The first send as the application made its workbench key: recorded as done on that page too.
    const [made] = await listed({ text: 'Made the workbench' });
    expect(made).toMatchObject({ kind: 'workbench', workbench_page: 'tokens' });
    expect(await traces({ text: 'Tokens page' })).toEqual(['from-tokens', made.trace_id]);
    expect(await traces({ text: 'composer' })).toEqual(['from-composer']);
    expect(await traces({ text: 'workbench' })).toEqual(['unnamed', made.trace_id]);
    expect(await traces({ text: 'page' })).toEqual(['from-composer', 'from-tokens', made.trace_id]);
  });

  it('by sender: outside clients, or this workbench (its pages and its own changes), with the application too, in exports as well', async () => {
    const applicationId = t.engine.bootstrapKeys!.private.application_id;
    await call('GET', '/tokens', 'outside-private');
    await call('GET', '/tokens/missing', 'outside-management', { key: t.managementKey });
    await callMethod(t.engine.workbench, 'sendRequest', { id: 'w', application_id: applicationId, method: 'GET', path: '/tokens', headers: [['BT-TRACE-ID', 'from-composer']], body: null }, 'composer');
    await callMethod(t.engine.workbench, 'changeRetention', { historyLimit: 5000 }, 'settings');
    // The workbench's changes: the retention, and the key it made to send as the application.
    const [changeAt, keyMadeAt] = (await listed({ view: 'changes' })).map((entry) => entry.trace_id);

    expect(await traces({ sender: 'outside' })).toEqual(['outside-management', 'outside-private']);
    expect(await traces({ sender: 'workbench' })).toEqual([changeAt, 'from-composer', keyMadeAt]);
    expect(await traces({ sender: 'workbench', application_id: applicationId })).toEqual(['from-composer']);
    expect(await traces({ sender: 'outside', application_id: applicationId })).toEqual(['outside-private']);
    const exported = (await callMethod(t.engine.workbench, 'exportHar', { filter: { sender: 'outside' } })) as { log: { entries: { _tokenbench: { trace_id: string } }[] } };
    expect(exported.log.entries.map((entry) => entry._tokenbench.trace_id)).toEqual(['outside-private', 'outside-management']);
    await expect(callMethod(t.engine.workbench, 'listHistory', { filter: { sender: 'someone' } })).rejects.toMatchObject({
      status: 400,
      errors: { 'filter.sender': [expect.any(String)] },
    });
  });

  it('by time range, and pages back through a filtered list', async () => {
    for (let n = 1; n <= 7; n++) await call('GET', `/tokens/missing-${n}`, `read-${n}`);
    await t.engine.history.flush();
    const all = await listed({ text: 'read-' });
    expect(all.map((e) => e.trace_id)).toEqual(['read-7', 'read-6', 'read-5', 'read-4', 'read-3', 'read-2', 'read-1']);
    const firstPage = await listed({ text: 'read-' }, 3);
    expect(firstPage.map((e) => e.trace_id)).toEqual(['read-7', 'read-6', 'read-5']);
    const next = await listed({ text: 'read-' }, 3, firstPage[2].id);
    expect(next.map((e) => e.trace_id)).toEqual(['read-4', 'read-3', 'read-2']);

    const since = all[4].at;
    const until = all[1].at;
    const inRange = await listed({ text: 'read-', since, until });
    expect(inRange.every((e) => e.at >= since && e.at < until)).toBe(true);
    expect(inRange.map((e) => e.trace_id)).toContain('read-3');
    expect(inRange.map((e) => e.trace_id)).not.toContain('read-6');
  });
});
