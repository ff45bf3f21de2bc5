import { describe, expect, it, vi } from 'vitest';
import { tokenWriteResultSchema, type TokenWrite } from '../../shared/workbench/token-contract';
import { LiveFeed, type LiveUpdate } from '../../electron/engine/workbench/live-feed';
import { revealEverythingKey } from '../support/test-engine';
import { engineForEachTest, PAN } from './support/workbench-engine';

/** The Tokens page's writes: through the service's front door as the application, so history and access rules apply. */
const t = engineForEachTest();

type Write = TokenWrite extends infer W ? (W extends unknown ? Omit<W, 'application_id'> & { application_id?: string } : never) : never;

async function write(request: Write) {
  const res = await t.bench.workbench('writeToken', { application_id: t.backend, ...request });
  expect(res.status, res.text).toBe(200);
  return { result: tokenWriteResultSchema.parse(res.body), text: res.text };
}

async function historyOf(traceId: string | null) {
  await t.bench.engine.history.flush();
  return (await t.bench.engine.history.list(100)).find((entry) => entry.trace_id === traceId);
}

describe('writing tokens from the workbench', () => {
  it('creates, changes and deletes as the application, each recorded in history as its request', async () => {
    const { result: created } = await write({ action: 'create', token: { type: 'card_number', data: PAN, metadata: { order: 'o-1' } } });
    expect(created).toMatchObject({ status: 201, deduplicated: false, problem: null });
    const [id] = created.token_ids;
    expect(await historyOf(created.trace_id)).toMatchObject({ kind: 'api', method: 'POST', path: '/tokens', status: 201, application_id: t.backend });

    const { result: updated } = await write({ action: 'update', token_id: id, patch: { metadata: { order: null, paid: 'yes' } } });
    expect(updated).toMatchObject({ status: 200, token_ids: [id] });
    expect(await historyOf(updated.trace_id)).toMatchObject({ method: 'PATCH', path: `/tokens/${id}`, status: 200 });
    expect((await t.bench.call('GET', `/tokens/${id}`, { key: t.bench.privateKey })).body.metadata).toEqual({ paid: 'yes' });

    const { result: deleted } = await write({ action: 'delete', token_id: id });
    expect(deleted).toMatchObject({ status: 204, token_ids: [id] });
    expect((await t.bench.call('GET', `/tokens/${id}`, { key: t.bench.privateKey })).status).toBe(404);
    expect(JSON.stringify(await t.bench.engine.history.list(100))).not.toContain(PAN);
  });

  it('creates many in one POST /tokenize, and reports the API’s field errors by path', async () => {
    const tokens = [{ type: 'card_number', data: PAN }, { type: 'token', data: 'x' }];
    const { result: many } = await write({ action: 'create_many', tokens });
    expect(many.status).toBe(200);
    expect(many.token_ids).toHaveLength(2);
    expect(await historyOf(many.trace_id)).toMatchObject({ method: 'POST', path: '/tokenize' });

    const { result: invalid } = await write({ action: 'create', token: { type: 'card_number', data: '4242424242424241' } });
    expect(invalid).toMatchObject({ status: 400, token_ids: [], problem: { errors: { data: ['Card number fails the Luhn check'] } } });
    const { result: invalidMany } = await write({ action: 'create_many', tokens: [...tokens, { type: 'bank', data: { routing_number: '123456789', account_number: '1' } }] });
    expect(invalidMany.problem!.errors).toEqual({ '[2].data.routing_number': ['Routing number fails the ABA checksum'] });
    const { result: refused } = await write({ action: 'delete', token_id: 'no-such-token' });
    expect(refused).toMatchObject({ status: 404, problem: { detail: 'Token no-such-token not found' } });
  });

  it('never answers the page with token data, even for an application whose writes reveal it', async () => {
    await revealEverythingKey(t.bench, 'reveal all');
    const revealer = ((await t.bench.workbench('listApplications')).body as { id: string; name: string }[]).find((app) => app.name === 'reveal all')!.id;
    const { result, text } = await write({ application_id: revealer, action: 'create', token: { type: 'card_number', data: PAN } });
    expect(result.status).toBe(201);
    const { text: updated } = await write({ application_id: revealer, action: 'update', token_id: result.token_ids[0], patch: { metadata: { a: 'b' } } });
    expect(text + updated).not.toContain(PAN);
  });

  it('enlists in a transaction, and says when deduplication found a token', async () => {
    const transaction = (await t.bench.call('POST', '/transactions', { key: t.bench.privateKey })).body.id;
    const { result } = await write({ action: 'create', transaction_id: transaction, token: { type: 'card_number', data: PAN } });
    expect(result.status).toBe(201);
    expect((await t.bench.call('GET', `/tokens/${result.token_ids[0]}`, { key: t.bench.privateKey })).status).toBe(404);
    expect((await t.bench.call('POST', `/transactions/${transaction}/commit`, { key: t.bench.privateKey })).status).toBe(200);
    const { result: again } = await write({ action: 'create', token: { type: 'card_number', data: PAN, deduplicate_token: true } });
    expect(again).toMatchObject({ status: 201, deduplicated: true, token_ids: result.token_ids });
  });
});

describe('token changes on the live road', () => {
  it('carries created, changed and deleted token ids, no data, and says "more" when there are too many to list', async () => {
    const feed = new LiveFeed(t.bench.engine.events, () => t.bench.engine.status(), () => t.bench.engine.transactions.counts(), (view) => view);
    const updates: LiveUpdate[] = [];
    const stop = feed.subscribe((update) => updates.push(update));
    const { result } = await write({ action: 'create', token: { type: 'card_number', data: PAN } });
    const [id] = result.token_ids;
    await vi.waitFor(() => expect(updates.flatMap((u) => u.tokens?.changes ?? [])).toContainEqual({ id, change: 'created' }));
    const lastChangeOf = () => updates.flatMap((u) => u.tokens?.changes ?? []).filter((c) => c.id === id).at(-1);
    await write({ action: 'update', token_id: id, patch: { metadata: { a: 'b' } } });
    await vi.waitFor(() => expect(lastChangeOf()).toEqual({ id, change: 'changed' }));
    await write({ action: 'delete', token_id: id });
    await vi.waitFor(() => expect(lastChangeOf()).toEqual({ id, change: 'deleted' }));
    expect(JSON.stringify(updates)).not.toContain(PAN);

    // A burst within one batch: past 200 tokens the update stops listing them.
    updates.length = 0;
    for (let i = 0; i < 201; i++) t.bench.engine.events.emit('token', { id: `burst-${i}`, change: 'created' });
    await vi.waitFor(() => expect(updates).toHaveLength(1));
    expect(updates[0].tokens).toEqual({ changes: [], more: true });
    stop();
  });
});
