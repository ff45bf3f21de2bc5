import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revealEverythingKey, startTestEngine, type TestEngine } from '../support/test-engine';

const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030, cvc: '123' };

let t: TestEngine;
let revealKey: string;
beforeAll(async () => {
  t = await startTestEngine();
  revealKey = await revealEverythingKey(t);
});
afterAll(() => t.stop());

describe('POST /tokens', () => {
  it('creates a card token with default container, mask, fingerprint and card details', async () => {
    const res = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card', data: CARD, metadata: { customer: 'c-1' } } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      type: 'card',
      containers: ['/pci/high/'],
      metadata: { customer: 'c-1' },
      data: { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2030 },
      card: { last4: '4242', brand: 'visa', expiration_month: 12, expiration_year: 2030 },
      _extras: { deduplicated: false },
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.fingerprint).toEqual(expect.any(String));
    expect(res.body.created_by).toEqual(expect.any(String));
    expect(res.text).not.toContain('4242424242424242');
    expect(res.text).not.toContain('"cvc"');
  });

  it('keeps a client-chosen id and answers 409 when it is taken', async () => {
    const body = { id: 'my-custom_token.1', type: 'token', data: 'hello' };
    expect((await t.call('POST', '/tokens', { key: t.privateKey, body })).status).toBe(201);
    const again = await t.call('POST', '/tokens', { key: t.privateKey, body });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('my-custom_token.1');
  });

  it.each([
    [{ type: 'card', data: { ...CARD, number: '4242424242424241' } }, 'data.number'],
    [{ type: 'card', data: { ...CARD, expiration_month: 13 } }, 'data.expiration_month'],
    [{ type: 'bank', data: { routing_number: '011000016', account_number: '1234' } }, 'data.routing_number'],
    [{ type: 'social_security_number', data: '12-345-678' }, 'data'],
    [{ type: 'nonsense', data: 'x' }, 'type'],
    [{ type: 'token' }, 'data'],
    [{ type: 'token', data: 'x', id: 'a/b' }, 'id'],
    [{ type: 'token', data: 'x', containers: ['no-slashes'] }, 'containers.0'],
    [{ type: 'token', data: 'x', metadata: { n: 1 } }, 'metadata.n'],
    [{ type: 'token', data: 'x', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ type: 'token', data: 'x', mask: '{{ data | no_such_filter }}' }, 'mask'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const res = await t.call('POST', '/tokens', { key: t.privateKey, body });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'about:blank', status: 400, title: expect.any(String) });
    expect(Object.keys(res.body.errors)).toContain(field);
  });

  it.each([
    ['a metadata key __proto__', '{"type":"token","data":"x","metadata":{"__proto__":"x","ok":"y"}}', 'metadata'],
    ['a number beyond a double', '{"type":"token","data":1e400}', 'too large'],
    ['invalid UTF-8', Buffer.concat([Buffer.from('{"type":"token","data":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]), 'UTF-8'],
  ])('refuses %s instead of storing something else', async (_, raw, said) => {
    const before = t.engine.status().tokenCount;
    const res = await t.call('POST', '/tokens', { key: t.privateKey, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(said);
    expect(t.engine.status().tokenCount).toBe(before);
  });

  it('accepts a JSON body that starts with a byte order mark', async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"type":"token","data":"bom"}')]);
    const res = await t.call('POST', '/tokens', { key: revealKey, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    expect(res.body.data).toBe('bom');
  });

  it('answers 400 for malformed JSON without echoing the body', async () => {
    const res = await t.call('POST', '/tokens', {
      key: t.privateKey,
      raw: '{"type":"card","data":{"number":"4242424242424242"',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/not valid JSON/);
    expect(res.text).not.toContain('4242424242424242');
  });

  it('deduplicates by fingerprint when asked', async () => {
    const body = { type: 'social_security_number', data: '123-45-6789', deduplicate_token: true };
    const first = await t.call('POST', '/tokens', { key: t.privateKey, body });
    const second = await t.call('POST', '/tokens', { key: t.privateKey, body });
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect(second.body._extras).toEqual({ deduplicated: true });
    expect(second.body.data).toBe('XXX-XX-6789');
  });

  it('replays the first success for a repeated idempotency key', async () => {
    const headers = { 'BT-IDEMPOTENCY-KEY': 'create-once-1' };
    const first = await t.call('POST', '/tokens', { key: t.privateKey, headers, body: { type: 'token', data: 'once' } });
    const second = await t.call('POST', '/tokens', { key: t.privateKey, headers, body: { type: 'token', data: 'once' } });
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    const list = await t.call('GET', `/tokens?id=${first.body.id}`, { key: t.privateKey });
    expect(list.body.pagination.total_items).toBe(1);
  });
});

describe('reading, updating and deleting', () => {
  it.each([
    ['social_security_number', '123-45-6789', 'XXX-XX-6789'],
    ['social_security_number', '123456789', 'XXXXX6789'],
    ['social_security_number', '1-2-3-4-5-6-7-8-9', 'X-X-X-X-X-X-X-8-9'],
    ['employer_id_number', '12-3456789', 'XX-XXX6789'],
    ['employer_id_number', '123456789', 'XXXXX6789'],
  ])('masks %s %s as docs/api.md shows it, %s', async (type, data, masked) => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type, data } });
    expect(created.body.data).toBe(masked);
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey })).body.data).toBe(masked);
  });

  it('reads masked with bare permissions and revealed under a reveal rule', async () => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card', data: CARD } });
    const masked = await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey });
    expect(masked.status).toBe(200);
    expect(masked.body.data.number).toBe('XXXXXXXXXXXX4242');
    const revealed = await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey });
    expect(revealed.body.data).toEqual(CARD);
  });

  it('needs a rule on every container of a token, and shows what the strictest of them allows', async () => {
    const rule = (container: string, transform: string) => ({ description: container, priority: 1, container, transform, permissions: ['token:create', 'token:read', 'token:update', 'token:delete'] });
    const generalOnly = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: { name: 'general only', type: 'private', rules: [rule('/general/', 'reveal')] },
    });
    const key = generalOnly.body.key;
    const both = ['/pci/high/', '/general/high/'];
    const pan = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'card', data: CARD, containers: both } });
    expect((await t.call('GET', `/tokens/${pan.body.id}`, { key })).status).toBe(403);
    expect((await t.call('DELETE', `/tokens/${pan.body.id}`, { key })).status).toBe(403);
    expect((await t.call('POST', '/tokens', { key, body: { type: 'card', data: CARD, containers: both } })).status).toBe(403);
    const own = await t.call('POST', '/tokens', { key, body: { type: 'token', data: 'mine' } });
    const move = await t.call('PATCH', `/tokens/${own.body.id}`, {
      key,
      raw: JSON.stringify({ containers: ['/general/high/', '/pci/high/'] }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(move.status).toBe(403);

    const mixed = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: { name: 'mask pci, reveal general', type: 'private', rules: [{ ...rule('/pci/', 'mask'), priority: 1 }, { ...rule('/general/', 'reveal'), priority: 2 }] },
    });
    const read = await t.call('GET', `/tokens/${pan.body.id}`, { key: mixed.body.key });
    expect(read.status).toBe(200);
    expect(read.body.data.number).toBe('XXXXXXXXXXXX4242');
  });

  // The vendor's "Control Data Access" guide: a priority-1 rule on `/` grants only token:create, and the read rules
  // after it still decide reads. So rules are tried per permission; a rule that does not grant it is passed over.
  it('tries the rules that grant the permission, in priority order, as the vendor guide example relies on', async () => {
    const rule = (priority: number, container: string, transform: string, permissions: string[]) => ({ description: container, priority, container, transform, permissions });
    const app = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: {
        name: 'control access',
        type: 'private',
        rules: [
          rule(1, '/', 'mask', ['token:create']),
          rule(2, '/users/government/', 'redact', ['token:read']),
          rule(3, '/users/employees/', 'reveal', ['token:read']),
          rule(4, '/users/', 'mask', ['token:read']),
        ],
      },
    });
    const key = app.body.key;
    const read = async (container: string) => {
      const body = { type: 'token', data: 'JaneDoe0042', mask: '{{ data | reveal_last: 4 }}', containers: [container] };
      const created = await t.call('POST', '/tokens', { key, body });
      expect(created.status).toBe(201);
      return t.call('GET', `/tokens/${created.body.id}`, { key });
    };
    const government = await read('/users/government/');
    expect(government.status).toBe(200);
    expect(government.body.data).toBeUndefined();
    expect((await read('/users/employees/')).body.data).toBe('JaneDoe0042');
    expect((await read('/users/contractors/')).body.data).toBe('XXXXXXX0042');
    expect((await read('/partners/')).status).toBe(403);
  });

  it('answers 404 for an unknown token and 401 without a known key', async () => {
    expect((await t.call('GET', '/tokens/does-not-exist', { key: t.privateKey })).status).toBe(404);
    const noKey = await t.call('GET', '/tokens/does-not-exist');
    expect(noKey.status).toBe(401);
    expect(noKey.body.detail).toContain('BT-API-KEY');
    expect((await t.call('GET', '/tokens/x', { key: 'key_local_not_a_real_key_at_all' })).status).toBe(401);
  });

  it('merges data, mask and metadata on PATCH and requires the merge-patch content type', async () => {
    const created = await t.call('POST', '/tokens', {
      key: revealKey,
      body: { type: 'token', data: { a: 1, b: { c: 2 } }, metadata: { keep: 'yes', drop: 'x' } },
    });
    const wrongType = await t.call('PATCH', `/tokens/${created.body.id}`, { key: revealKey, body: { data: { a: 2 } } });
    expect(wrongType.status).toBe(415);
    const patched = await t.call('PATCH', `/tokens/${created.body.id}`, {
      key: revealKey,
      body: { data: { a: 2, b: { d: 3 } }, metadata: { drop: null, add: 'z' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ a: 2, b: { c: 2, d: 3 } });
    expect(patched.body.metadata).toEqual({ keep: 'yes', add: 'z' });
    expect(patched.body.modified_at).toEqual(expect.any(String));
    const read = await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey });
    expect(read.body.data).toEqual({ a: 2, b: { c: 2, d: 3 } });
    // RFC 7386: a null member removes it, so the whole metadata goes.
    const cleared = await t.call('PATCH', `/tokens/${created.body.id}`, {
      key: revealKey,
      body: { metadata: null },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.metadata).toEqual({});
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey })).body.metadata).toEqual({});
  });

  it('refuses a PATCH that changes type or id, and accepts them sent back unchanged', async () => {
    const created = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: 'fixed' } });
    const patch = (body: unknown) =>
      t.call('PATCH', `/tokens/${created.body.id}`, { key: revealKey, body, headers: { 'content-type': 'application/merge-patch+json' } });
    const retyped = await patch({ type: 'card_number', data: '4242424242424242' });
    expect(retyped.status).toBe(400);
    expect(Object.keys(retyped.body.errors)).toEqual(['type']);
    const renamed = await patch({ id: 'another-id' });
    expect(renamed.status).toBe(400);
    expect(Object.keys(renamed.body.errors)).toEqual(['id']);
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey })).body).toMatchObject({ type: 'token', data: 'fixed' });
    // A client that PATCHes back the token it read, with one field changed.
    const roundTrip = await patch({ ...created.body, data: 'changed' });
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body.data).toBe('changed');
  });

  it('puts containers, search indexes and fingerprint back to their defaults when a PATCH sets them to null', async () => {
    const created = await t.call('POST', '/tokens', {
      key: revealKey,
      body: { type: 'social_security_number', data: '123-45-6789', containers: ['/pii/low/'], search_indexes: [], fingerprint_expression: '{{ data }}' },
    });
    const res = await t.call('PATCH', `/tokens/${created.body.id}`, {
      key: revealKey,
      body: { containers: null, search_indexes: null, fingerprint_expression: null },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.containers).toEqual(['/pii/high/']);
    expect(res.body.search_indexes).toHaveLength(3);
    expect(res.body.fingerprint_expression).toBe("{{ data | remove: '-' }}");
    expect(res.body.fingerprint).not.toBe(created.body.fingerprint);
  });

  it('keeps a __proto__ key that a merge patch adds to token data', async () => {
    const created = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data: { b: 2 } } });
    const res = await t.call('PATCH', `/tokens/${created.body.id}`, {
      key: revealKey,
      raw: '{"data":{"__proto__":{"c":3}}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"data":{"b":2,"__proto__":{"c":3}}');
  });

  it('rejects a PATCH that makes card data invalid, leaving the token unchanged', async () => {
    const created = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'card', data: CARD } });
    const bad = await t.call('PATCH', `/tokens/${created.body.id}`, {
      key: revealKey,
      body: { data: { number: '1234' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors['data.number']).toBeDefined();
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey })).body.data).toEqual(CARD);
  });

  it('shows a changed card masked at once, and a change staged in a transaction only after commit', async () => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card', data: CARD } });
    const last4 = async () => (await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey })).body.data.number.slice(-4);
    expect(await last4()).toBe('4242');
    const patch = (number: string, headers: Record<string, string> = {}) =>
      t.call('PATCH', `/tokens/${created.body.id}`, {
        key: t.privateKey,
        body: { data: { number } },
        headers: { 'content-type': 'application/merge-patch+json', ...headers },
      });
    expect((await patch('5555555555554444')).status).toBe(200);
    expect(await last4()).toBe('4444');
    const tx = (await t.call('POST', '/transactions', { key: t.privateKey })).body.id;
    expect((await patch('4000056655665556', { 'BT-TRANSACTION-ID': tx })).status).toBe(200);
    expect(await last4()).toBe('4444');
    expect((await t.call('POST', `/transactions/${tx}/commit`, { key: t.privateKey })).status).toBe(200);
    expect(await last4()).toBe('5556');
  });

  it('deletes with 204, after which the token is gone', async () => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'bye' } });
    const del = await t.call('DELETE', `/tokens/${created.body.id}`, { key: t.privateKey });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey })).status).toBe(404);
    expect((await t.call('DELETE', `/tokens/${created.body.id}`, { key: t.privateKey })).status).toBe(404);
  });

  it('hides an expired token from every read, and frees its id', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await t.call('POST', '/tokens', {
      key: revealKey,
      body: { id: 'short-lived-1', type: 'token', data: 'short-lived', expires_at: expiresAt, metadata: { batch: 'expiry' } },
    });
    expect(created.body.expires_at).toBe(expiresAt);
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: revealKey })).status).toBe(404);
    expect((await t.call('GET', '/tokens?metadata.batch=expiry', { key: revealKey })).body.data).toEqual([]);
    const detok = await t.call('POST', '/detokenize', { key: revealKey, body: { v: `{{ ${created.body.id} }}` } });
    expect(detok.status).toBe(400);
    // Gone for every read, so not "already exists" either, though the minute purge has not run yet.
    const again = await t.call('POST', '/tokens', { key: revealKey, body: { id: 'short-lived-1', type: 'token', data: 'second life' } });
    expect(again.status).toBe(201);
    const back = await t.call('POST', '/detokenize', { key: revealKey, body: { v: '{{ short-lived-1 }}' } });
    expect(back.body).toEqual({ v: 'second life' });
  });
});

describe('listing and searching', () => {
  const created: { id: string; at: string }[] = [];
  /** The tokens by creation: ids[i] holds listed-i. */
  const ids: string[] = [];
  /** The same tokens in list order. */
  const listed: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      const res = await t.call('POST', '/tokens', {
        key: revealKey,
        body: {
          type: 'token',
          data: `listed-${i}`,
          metadata: { group: 'list-test', n: String(i) },
          search_indexes: ['{{ data }}'],
          containers: [i < 3 ? '/list/a/' : '/list/b/'],
        },
      });
      ids.push(res.body.id);
      created.push({ id: res.body.id, at: res.body.created_at });
    }
    // Lists are ordered by (created_at, id): two creates in one millisecond come in id order, not arrival order.
    created.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1));
    listed.push(...created.map((c) => c.id));
  });

  it('pages v1 with totals and filters by repeated id and metadata', async () => {
    const page = await t.call('GET', '/tokens?metadata.group=list-test&size=2&page=2', { key: revealKey });
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total_items: 5, page_number: 2, page_size: 2, total_pages: 3 });
    expect(page.body.data.map((d: any) => d.id)).toEqual(listed.slice(2, 4));
    const byId = await t.call('GET', `/tokens?id=${ids[0]}&id=${ids[4]}`, { key: revealKey });
    expect(byId.body.data.map((d: any) => d.id).sort()).toEqual([ids[0], ids[4]].sort());
    expect((await t.call('GET', '/tokens/?metadata.group=list-test', { key: revealKey })).status).toBe(200);
  });

  it('walks v2 pages by cursor and filters by container', async () => {
    const seen: string[] = [];
    let start: string | null = '';
    while (start !== null) {
      const q: string = `/v2/tokens?container=/list/&size=2${start ? `&start=${start}` : ''}`;
      const res = await t.call('GET', q, { key: revealKey });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((d: any) => d.id));
      start = res.body.pagination.next;
    }
    expect(seen).toEqual(listed);
    const b = await t.call('GET', '/v2/tokens?container=/list/b/', { key: revealKey });
    expect(b.body.data.map((d: any) => d.id)).toEqual(listed.filter((id) => ids.indexOf(id) >= 3));
    expect((await t.call('GET', '/v2/tokens?start=garbage', { key: revealKey })).status).toBe(400);
  });

  it('reads an empty page parameter as absent and refuses page numbers it would have to guess', async () => {
    expect((await t.call('GET', '/tokens?metadata.group=list-test&page=&size=', { key: revealKey })).body.pagination).toMatchObject({ page_number: 1, page_size: 20 });
    for (const q of ['page=0x2', 'page=2.5', 'page=0', 'size=101', 'size=1e1']) {
      const res = await t.call('GET', `/tokens?${q}`, { key: revealKey });
      expect(res.status, q).toBe(400);
      expect(Object.keys(res.body.errors), q).toEqual([q.split('=')[0]]);
    }
    const bad = await t.call('GET', '/v2/tokens?container=notacontainer', { key: revealKey });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['container']);
  });

  it('searches by search index, metadata and boolean operators (v1 and v2)', async () => {
    const one = await t.call('POST', '/tokens/search', { key: revealKey, body: { query: 'data:listed-3' } });
    expect(one.status).toBe(200);
    expect(one.body.data.map((d: any) => d.id)).toEqual([ids[3]]);
    const or = await t.call('POST', '/v2/tokens/search', {
      key: revealKey,
      body: { query: 'metadata.group:list-test AND (metadata.n:1 OR metadata.n:4)' },
    });
    expect(or.body.data.map((d: any) => d.id)).toEqual(listed.filter((id) => id === ids[1] || id === ids[4]));
    const not = await t.call('POST', '/tokens/search', {
      key: revealKey,
      body: { query: 'metadata.group:list-test NOT container:/list/a/' },
    });
    expect(not.body.pagination.total_items).toBe(2);
  });

  it('answers 400 for a query that does not parse, naming the position', async () => {
    const res = await t.call('POST', '/tokens/search', { key: revealKey, body: { query: 'metadata.group:(' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.query[0]).toMatch(/column|position/i);
    expect((await t.call('POST', '/tokens/search', { key: revealKey, body: { query: 'bogus:1' } })).status).toBe(400);
  });

  it('only lists tokens in containers the caller may read', async () => {
    const app = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: {
        name: 'reads list a only',
        type: 'private',
        rules: [{ description: 'a', priority: 1, container: '/list/a/', transform: 'mask', permissions: ['token:read'] }],
      },
    });
    const res = await t.call('GET', '/tokens?metadata.group=list-test', { key: app.body.key });
    expect(res.body.pagination.total_items).toBe(3);
    const forbidden = await t.call('GET', `/tokens/${ids[4]}`, { key: app.body.key });
    expect(forbidden.status).toBe(403);
    expect((await t.call('POST', '/tokens/search', { key: app.body.key, body: { query: '' } })).status).toBe(403);
  });
});

describe('tokenize and detokenize', () => {
  it('tokenizes a graph: primitive leaves become token ids, token requests become tokens', async () => {
    const res = await t.call('POST', '/tokenize', {
      key: revealKey,
      body: { first_name: 'John', tags: ['a', 'b'], card: { type: 'card_number', data: '5555555555554444' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.first_name).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.tags).toHaveLength(2);
    expect(res.body.card).toMatchObject({ type: 'card_number', card: { last4: '4444', brand: 'mastercard' } });
    const back = await t.call('POST', '/detokenize', {
      key: revealKey,
      body: { name: `{{ ${res.body.first_name} }}`, pan: `{{ ${res.body.card.id} }}` },
    });
    expect(back.body).toEqual({ name: 'John', pan: '5555555555554444' });
  });

  it('creates nothing when one request in the graph is invalid', async () => {
    const before = t.engine.status().tokenCount;
    const res = await t.call('POST', '/tokenize', {
      key: revealKey,
      body: ['ok', { type: 'card_number', data: '1111' }],
    });
    expect(res.status).toBe(400);
    expect(t.engine.status().tokenCount).toBe(before);
  });

  it('stops at the 101st token of a tokenize request: the rest of the body is never looked at, nothing is created', async () => {
    const before = t.engine.status().tokenCount;
    // Past the limit an invalid request that a full walk would meet and name instead.
    const body = [...Array.from({ length: 120 }, (_, i) => `leaf-${i}`), { type: 'card_number', data: '1111' }];
    const res = await t.call('POST', '/tokenize', { key: revealKey, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('A tokenize request creates at most 100 tokens');
    // 64,000 leaves: a walk of the whole body, checking each id against all before it, took half a minute.
    const wide = await t.call('POST', '/tokenize', { key: revealKey, body: { deep: { leaves: Array.from({ length: 64_000 }, () => 1) } } });
    expect(wide.status).toBe(400);
    expect(wide.body.detail).toBe('A tokenize request creates at most 100 tokens');
    expect(t.engine.status().tokenCount).toBe(before);
    // Exactly 100 still go through.
    expect((await t.call('POST', '/tokenize', { key: revealKey, body: Array.from({ length: 100 }, (_, i) => `ok-${i}`) })).status).toBe(200);
  });

  it('answers 409 naming a taken id in a tokenize batch, and creates none of the batch', async () => {
    expect((await t.call('POST', '/tokens', { key: revealKey, body: { id: 'taken-in-batch', type: 'token', data: 'a' } })).status).toBe(201);
    const before = t.engine.status().tokenCount;
    const res = await t.call('POST', '/tokenize', {
      key: revealKey,
      body: [{ type: 'token', data: 'fresh' }, { id: 'taken-in-batch', type: 'token', data: 'b' }],
    });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('taken-in-batch');
    expect(t.engine.status().tokenCount).toBe(before);
  });

  it('names the failing item of a tokenize batch', async () => {
    const res = await t.call('POST', '/tokenize', {
      key: revealKey,
      body: { people: [{ ok: 'x' }, { card: { type: 'card_number', data: '1234' } }] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['people[1].card.data']);
  });

  it('deduplicates against tokens made earlier in the same tokenize batch', async () => {
    const twin = { type: 'token', data: `batch-twin-${Date.now()}`, deduplicate_token: true };
    const res = await t.call('POST', '/tokenize', { key: revealKey, body: [twin, twin] });
    expect(res.status).toBe(200);
    expect(res.body[1].id).toBe(res.body[0].id);
    expect(res.body.map((v: any) => v._extras.deduplicated)).toEqual([false, true]);
  });

  it('detokenizes to plaintext with bare permissions (token:read (reveal)), and as its rule says under an access rule', async () => {
    const pan = (await t.call('POST', '/tokens', { key: revealKey, body: { type: 'card_number', data: '4242424242424242' } })).body.id;
    const body = { pan: `{{ ${pan} }}` };
    // The first-start private key: bare permissions, every token permission.
    expect((await t.call('POST', '/detokenize', { key: t.privateKey, body })).body).toEqual({ pan: '4242424242424242' });
    const ruled = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: { name: 'masked reader', type: 'private', rules: [{ description: 'pci masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }] },
    });
    expect((await t.call('POST', '/detokenize', { key: ruled.body.key, body })).body).toEqual({ pan: 'XXXXXXXXXXXX4242' });
    const elsewhere = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: { name: 'general reader', type: 'private', rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:read'] }] },
    });
    expect((await t.call('POST', '/detokenize', { key: elsewhere.body.key, body })).status).toBe(403);
  });

  it('answers 400 naming an unknown token in detokenize', async () => {
    const res = await t.call('POST', '/detokenize', { key: revealKey, body: { v: '{{ no-such-token-here }}' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('no-such-token-here');
  });
});
