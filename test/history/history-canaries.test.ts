import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER, SESSION_QUERY, httpPath } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * What history must never keep, each case with its own canary: secrets a refused request carried, and plaintext a
 * request of an unexpected shape carried. Checked in what history answers and in the bytes of its files.
 */
const PAGE = 'http://localhost:3000';

let t: TestEngine;
/** A destination that answers with what it received in its response headers, as a careless API might. */
let reflecting: http.Server;
let reflectingUrl: string;
beforeAll(async () => {
  t = await startTestEngine({ allowedOrigins: [PAGE] });
  reflecting = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const number: string = JSON.parse(body).card?.number ?? '';
      const grouped = number.match(/.{1,4}/g)?.join(' ') ?? '';
      const forms = [
        ['X-Last-Four', `ends ${number.slice(-4)}`],
        ['X-Base64', Buffer.from(number).toString('base64')],
        ['X-Dotted', [...number].join('.')],
      ];
      res.writeHead(200, [['X-Received', body], ['X-Partial', `card ${number} ok`], ['X-Grouped', `card ${grouped} ok`], ...forms, ['Content-Type', 'text/plain']].flat());
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => reflecting.listen(0, '127.0.0.1', resolve));
  reflectingUrl = `http://127.0.0.1:${(reflecting.address() as AddressInfo).port}`;
});
afterAll(async () => {
  reflecting.close();
  await t.stop();
});

let serial = 0;
/** A value that appears nowhere else, shaped like what it stands for. */
const canary = (kind: string) => `${kind}-canary-${++serial}-${Math.random().toString(36).slice(2)}`;

/** Asserts that history holds an entry for the trace id, and that neither it nor any history file holds `secret`. */
async function expectKeptWithout(traceId: string, secret: string): Promise<void> {
  await t.engine.history.flush();
  const entry = (await t.engine.history.list(200)).find((e) => e.trace_id === traceId);
  expect(entry, `an entry for ${traceId}`).toBeDefined();
  expect(JSON.stringify(entry)).not.toContain(secret);
  for (const file of readdirSync(t.dataDir!).filter((f) => f.startsWith('history.sqlite'))) {
    expect(readFileSync(join(t.dataDir!, file)).includes(Buffer.from(secret)), `${secret} in ${file}`).toBe(false);
  }
}

describe('the workbench session of a refused request', () => {
  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a page allowed to call the API, which the workbench does not answer', { origin: PAGE }],
  ])('is cut from the live stream query (%s)', async (_case, headers) => {
    // The name as the workbench reads it, whether written plainly or percent-encoded.
    for (const name of [SESSION_QUERY, encodeURIComponent(SESSION_QUERY).replace('i', '%69')]) {
      const session = canary('session');
      const traceId = canary('trace');
      const res = await t.call('GET', `${httpPath('live')}?x=1&${name}=${session}`, { headers: { ...headers, 'BT-TRACE-ID': traceId } });
      expect([403, 404]).toContain(res.status);
      await expectKeptWithout(traceId, session);
    }
  });

  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a page allowed to call the API', { origin: PAGE }],
  ])('is cut from the session header (%s)', async (_case, headers) => {
    const session = canary('session');
    const traceId = canary('trace');
    const res = await t.call('POST', httpPath('getStatus'), { body: {}, headers: { ...headers, [SESSION_HEADER]: session, 'BT-TRACE-ID': traceId } });
    expect([403, 404]).toContain(res.status);
    await expectKeptWithout(traceId, session);
  });

  // The page's address carries the session in its fragment; one typed with `?session=` sends it to the server.
  it.each([
    ['a foreign Origin', 'GET', '/ui/', { origin: 'https://evil.example' }],
    ['a foreign Host', 'GET', '/ui/', { host: 'evil.example' }],
    ['a page allowed to call the API', 'GET', '/ui/', { origin: PAGE }],
    ['a method the page does not take', 'POST', '/ui/', {}],
    ['the address without its slash', 'GET', '/ui', { origin: 'https://evil.example' }],
    ['a file of the page', 'GET', '/ui/assets/x.js', { origin: 'https://evil.example' }],
  ])('is cut from the query of a page load (%s)', async (_case, method, path, headers) => {
    const session = canary('session');
    const traceId = canary('trace');
    const res = await t.call(method, `${path}?${SESSION_QUERY}=${session}&x=1`, { headers: { ...headers, 'BT-TRACE-ID': traceId } });
    expect([403, 404]).toContain(res.status);
    await expectKeptWithout(traceId, session);
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(200)).find((e) => e.trace_id === traceId);
    expect(entry?.path).toBe(`${path}?${SESSION_QUERY}=...${session.slice(-4)}&x=1`);
  });
});

describe('plaintext in a token request of an unexpected shape', () => {
  const send = async (method: string, path: string, body: (secret: string) => unknown, headers: Record<string, string> = {}) => {
    const secret = canary('4111');
    const traceId = canary('trace');
    const res = await t.call(method, path, { key: t.privateKey, body: body(secret), headers: { ...headers, 'BT-TRACE-ID': traceId } });
    await expectKeptWithout(traceId, secret);
    return { res, traceId };
  };
  const entryFor = async (traceId: string) => (await t.engine.history.list(200)).find((e) => e.trace_id === traceId)!;

  it.each([
    ['an array', (secret: string) => [{ type: 'token', data: secret }]],
    ['Data with a capital D', (secret: string) => ({ type: 'token', Data: secret })],
    ['no data, the value under another name', (secret: string) => ({ type: 'token', value: secret })],
    ['a field of the wrong type', (secret: string) => ({ type: 'token', data: 'x', metadata: { card: { number: secret } } })],
    ['a bare string', (secret: string) => secret],
  ])('POST /tokens: %s is kept as its size and shape only', async (_case, body) => {
    const { res, traceId } = await send('POST', '/tokens', body);
    expect(res.status).toBe(400);
    expect((await entryFor(traceId)).request_body).toMatchObject({ redacted: 'unexpected shape', bytes: expect.any(Number), shape: expect.any(String) });
  });

  it('PATCH /tokens/{id}: an array body, or a type that is no type, is kept as its size and shape only', async () => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'x' } });
    const headers = { 'content-type': 'application/merge-patch+json' };
    await send('PATCH', `/tokens/${created.body.id}`, (secret) => [{ data: secret }], headers);
    await send('PATCH', `/tokens/${created.body.id}`, (secret) => ({ type: { was: secret } }), headers);
  });

  it('POST /tokenize: an item with a field a token request does not have is kept as its size and shape only', async () => {
    const { res, traceId } = await send('POST', '/tokenize', (secret) => ({ ok: { type: 'token', data: 'x' }, odd: { type: 'token', data: 'y', note: secret } }));
    expect(res.status).toBe(200);
    expect((await entryFor(traceId)).request_body).toMatchObject({
      ok: { type: 'token', data: '[redacted]' },
      odd: { redacted: 'unexpected shape', shape: 'an object with 3 fields' },
    });
  });

  it('keeps a token request of the expected shape readable, but its data', async () => {
    const { res, traceId } = await send('POST', '/tokens', (secret) => ({ type: 'token', data: secret, metadata: { customer: 'c-1' }, containers: ['/general/'] }));
    expect(res.status).toBe(201);
    expect((await entryFor(traceId)).request_body).toEqual({ type: 'token', data: '[redacted]', metadata: { customer: 'c-1' }, containers: ['/general/'] });
  });
});

describe('plaintext a destination sends back in its response headers', () => {
  it('is masked in the proxy history wherever the request detokenized it', async () => {
    const number = `4${canary('').replace(/\D/g, '').padEnd(15, '7').slice(0, 15)}`;
    // A quote, so the body carries it escaped, and the destination echoes it so.
    const name = canary('name');
    const holder = `${name} "the holder"`;
    const card = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: { number, holder } } });
    const traceId = canary('trace');
    const res = await t.call('POST', '/proxy', {
      key: t.privateKey,
      body: { card: `{{ ${card.body.id} }}`, holder: `{{ ${card.body.id} | json: '$.holder' }}` },
      headers: { 'BT-PROXY-URL': reflectingUrl, 'BT-TRACE-ID': traceId },
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-partial']).toBe(`card ${number} ok`);
    for (const secret of [number, name]) await expectKeptWithout(traceId, secret);
    const entry = (await t.engine.history.list(200)).find((e) => e.trace_id === traceId)!;
    const headers = new Map((entry.details as { response: { headers: [string, string][] } }).response.headers);
    expect(headers.get('X-Partial')).toBe('card [redacted] ok');
    // The number as a person writes it, in groups: masked whole, not a digit of it left.
    expect(headers.get('X-Grouped')).toBe('card [redacted] ok');
    expect(headers.get('Content-Type')).toBe('text/plain');
  });

  it('is masked in every form the masker knows, while headers that repeat nothing are kept as they came', async () => {
    const number = `4${canary('').replace(/\D/g, '').padEnd(15, '3').slice(0, 15)}`;
    const card = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: { number } } });
    const traceId = canary('trace');
    const res = await t.call('POST', '/proxy', {
      key: t.privateKey,
      body: { card: { number: `{{ ${card.body.id} | json: '$.number' }}` } },
      headers: { 'BT-PROXY-URL': reflectingUrl, 'BT-TRACE-ID': traceId },
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-base64']).toBe(Buffer.from(number).toString('base64'));
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(200)).find((e) => e.trace_id === traceId)!;
    const headers = new Map((entry.details as { response: { headers: [string, string][] } }).response.headers);
    // A slice of the number standing alone (its last four) is all X; the other forms become the token's mask.
    expect(headers.get('X-Last-Four')).toBe('ends XXXX');
    expect(headers.get('X-Base64')).not.toBe(Buffer.from(number).toString('base64'));
    expect(headers.get('X-Dotted')!.replace(/\D/g, '')).not.toContain(number.slice(-4));
    expect(headers.get('Content-Type')).toBe('text/plain');
  });
});
