import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * POST /tokens requests that arrive together commit in one SQLite transaction (a group commit). Sent at once from
 * here, they land in one turn of the engine's event loop; every assertion also holds if they do not.
 */
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine();
  // Opens the client's keep-alive connections first, so the creates below are not spread out by connection setup.
  await Promise.all(Array.from({ length: 16 }, () => t.call('GET', '/tokens/not-there', { key: t.privateKey })));
});
afterAll(async () => {
  await t.stop();
});

const create = (id: string, headers: Record<string, string> = {}) =>
  t.call('POST', '/tokens', { key: t.privateKey, headers, body: { id, type: 'token', data: `value of ${id}` } });

describe('creates that arrive together', () => {
  it('answer each client on its own: a taken id is that client\'s 409, and the others are created', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `group-a-${i}`);
    // Two clients race for group-a-3; every other id is asked for once.
    const asked = [...ids, 'group-a-3'];
    const replies = await Promise.all(asked.map((id) => create(id)));
    const forContested = replies.filter((_, i) => asked[i] === 'group-a-3');
    expect(forContested.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(forContested.find((r) => r.status === 409)!.body.detail).toBe('A token with id group-a-3 already exists');
    for (const [i, reply] of replies.slice(0, ids.length).entries()) {
      if (ids[i] === 'group-a-3') continue;
      expect(reply.status).toBe(201);
    }
    // The 409 undid nothing of the others: every id is there once, committed.
    for (const id of ids) expect((await t.call('GET', `/tokens/${id}`, { key: t.privateKey })).status).toBe(200);
    const listed = await t.call('GET', '/v2/tokens?size=100', { key: t.privateKey });
    expect(listed.body.data.filter((d: { id: string }) => d.id.startsWith('group-a-')).length).toBe(ids.length);
  });

  it('refuse an id an open transaction has reserved, and only that one', async () => {
    const tx = await t.call('POST', '/transactions', { key: t.privateKey });
    expect(tx.status).toBe(201);
    expect((await create('group-b-reserved', { 'BT-TRANSACTION-ID': tx.body.id })).status).toBe(201);
    const ids = ['group-b-reserved', ...Array.from({ length: 6 }, (_, i) => `group-b-${i}`)];
    const replies = await Promise.all(ids.map((id) => create(id)));
    expect(replies[0].status).toBe(409);
    expect(replies[0].body.detail).toBe('Token id group-b-reserved is taken by another open transaction');
    expect(replies.slice(1).map((r) => r.status)).toEqual(Array(6).fill(201));
    await t.call('POST', `/transactions/${tx.body.id}/rollback`, { key: t.privateKey });
  });
});
