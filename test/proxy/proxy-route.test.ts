import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../electron/engine/history/request-log';
import { startTestEngine, type TestEngine , filesIn } from '../support/test-engine';
import { closedPort, rawExchange, startServer, type TestServer } from './support/loopback';
import { splitAt } from '../support/pieces';

const PAN = '4000002760003184';
const CARD = { number: PAN, expiration_month: 7, expiration_year: 2031, cvc: '321' };
const USE_ALL = ['token:create', 'token:read', 'token:use'];

let t: TestEngine;
let echo: string;
let cardId: string;
let useKey: string;
/** A destination that answers what the test asks, to see raw passthrough. */
let custom: TestServer;

const proxy = (path: string, options: { url?: string; key?: string | null; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {}) =>
  t.call(options.raw !== undefined || options.body !== undefined ? 'POST' : 'GET', path, {
    key: options.key === undefined ? useKey : options.key,
    body: options.body,
    raw: options.raw,
    headers: { ...(options.url === undefined ? { 'BT-PROXY-URL': echo } : options.url ? { 'BT-PROXY-URL': options.url } : {}), ...options.headers },
  });

beforeAll(async () => {
  t = await startTestEngine({ echoPort: 0, proxyTimeoutMs: 800, maxBodyBytes: 32 * 1024 });
  echo = t.engine.echoUrl!;
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'proxy user', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: USE_ALL }] },
  });
  useKey = app.body.key;
  cardId = (await t.call('POST', '/tokens', { key: useKey, body: { type: 'card', data: CARD } })).body.id;
  custom = await startServer((req, res) => {
    if (req.url === '/fail') {
      res.writeHead(500, [['Content-Type', 'text/plain'], ['X-Trace', 'dest-1'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']]);
      res.end('upstream exploded \u00e9');
    } else {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    }
  });
});
afterAll(async () => {
  await custom.close();
  await t.stop();
});

describe('forwarding with detokenization', () => {
  it('detokenizes the JSON body, builds the URL from PFX-PROXY-URL + path + query, and returns the raw response', async () => {
    const res = await proxy('/proxy/v1/charges?expand=x', {
      url: `${echo}/base/`,
      headers: { Authorization: 'Bearer sk_test_dest', 'X-Custom': 'kept' },
      body: { card: { number: `{{ ${cardId} | json: '$.number' }}`, exp: `{{ ${cardId} | card_exp: 'MM/YY' }}` }, amount: 100 },
    });
    expect(res.status).toBe(200);
    expect(res.headers['bt-proxy-destination-status']).toBe('200');
    expect(res.headers['bt-trace-id']).toEqual(expect.any(String));
    expect(res.body.path).toBe('/base/v1/charges');
    expect(res.body.query).toEqual({ expand: 'x' });
    expect(JSON.parse(res.body.body)).toEqual({ card: { number: PAN, exp: '07/31' }, amount: 100 });
    expect(res.body.headers).toMatchObject({ authorization: 'Bearer sk_test_dest', 'x-custom': 'kept', host: new URL(echo).host });
    for (const name of ['bt-api-key', 'bt-proxy-url']) expect(res.body.headers[name]).toBeUndefined();
  });

  it('detokenizes a large body (rendered straight into bytes), leaving the rest of it as sent', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => ({ sku: `SKU-${i}`, note: 'x'.repeat(40) }));
    const res = await proxy('/proxy', {
      body: { pan: `{{ ${cardId} | json: '$.number' }}`, lines, exp: `{{ ${cardId} | card_exp: 'MM/YYYY' }}`, card: `{{ ${cardId} }}` },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.body)).toEqual({ pan: PAN, lines, exp: '07/2031', card: CARD });
  });

  it('detokenizes the card in front of a large body, the rest reaching the destination and the history as sent', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => ({ sku: `SKU-${i}`, note: 'x'.repeat(20) }));
    const res = await proxy('/proxy', {
      headers: { 'BT-TRACE-ID': 'card-in-front' },
      body: { pan: `{{ ${cardId} | json: '$.number' }}`, lines, note: '} " \\ ' },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.body)).toEqual({ pan: PAN, lines, note: '} " \\ ' });
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'card-in-front')!;
    const outbound = (entry.details as any).outbound;
    expect(outbound.bytes).toBe(Buffer.byteLength(res.body.body));
    // History keeps the first 16 KiB of the body as it left, with the card masked.
    const sent = JSON.stringify({ pan: `{{ ${cardId} | json: '$.number' }}`, lines, note: '} " \\ ' });
    expect(outbound.detokenized_body).toBe(sent.replace(`{{ ${cardId} | json: '$.number' }}`, 'XXXXXXXXXXXX3184').slice(0, 16 * 1024));
  });

  it('turns a lone expression whose result is an object into that JSON value', async () => {
    const res = await proxy('/proxy', { body: { card: `{{ ${cardId} }}` } });
    expect(JSON.parse(res.body.body)).toEqual({ card: CARD });
  });

  it('keeps a JSON body valid when a value holds quotes and backslashes', async () => {
    const tricky = 'he said "hi" \\ then\nleft \u2028 🎉';
    const id = (await t.call('POST', '/tokens', { key: useKey, body: { type: 'token', data: tricky } })).body.id;
    const res = await proxy('/proxy', { body: { note: `{{ ${id} }}`, prefix: `x-{{ ${id} }}` } });
    expect(JSON.parse(res.body.body)).toEqual({ note: tricky, prefix: `x-${tricky}` });
  });

  it('keeps form bodies form-encoded and inserts plain text into XML', async () => {
    const form = await proxy('/proxy', {
      raw: `card=%7B%7B ${cardId} | json: '$.number' %7D%7D&name=Jane+Doe&cvc={{ ${cardId} | json: '$.cvc' }}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(Object.fromEntries(new URLSearchParams(form.body.body))).toEqual({ card: PAN, name: 'Jane Doe', cvc: '321' });
    const xml = await proxy('/proxy', {
      raw: `<pay><pan>{{ ${cardId} | json: '$.number' }}</pan><last4>{{ ${cardId} | json: '$.number' | last4 }}</last4></pay>`,
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.body.body).toBe(`<pay><pan>${PAN}</pan><last4>3184</last4></pay>`);
  });

  it('finds an expression however the body escapes its braces: form-encoded, half encoded, or \\u007b in JSON', async () => {
    const expression = `{{ ${cardId} | json: '$.number' }}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const encoded = await proxy('/proxy', { raw: new URLSearchParams({ card: expression, name: 'Jane' }).toString(), headers: form });
    expect(new URLSearchParams(encoded.body.body).get('card')).toBe(PAN);
    const halfEncoded = await proxy('/proxy', { raw: `card=%7B{ ${cardId} | json: '$.number' }}`, headers: form });
    expect(new URLSearchParams(halfEncoded.body.body).get('card')).toBe(PAN);
    const escaped = await proxy('/proxy', {
      raw: `{"card":"\\u007b\\u007B ${cardId} | json: '$.number' \\u007d\\u007d"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(escaped.body.body)).toEqual({ card: PAN });
  });

  it('passes a destination error through byte for byte, with its status in PFX-PROXY-DESTINATION-STATUS', async () => {
    const res = await proxy('/proxy', { url: `${custom.url}/fail`, body: {} });
    expect(res.status).toBe(500);
    expect(res.headers['bt-proxy-destination-status']).toBe('500');
    expect(res.text).toBe('upstream exploded \u00e9');
    expect(res.headers['x-trace']).toBe('dest-1');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it.each(['GET', 'PUT', 'PATCH', 'DELETE'])('forwards %s', async (method) => {
    const res = await t.call(method, '/proxy/items/7', { key: useKey, headers: { 'BT-PROXY-URL': echo } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ method, path: '/items/7' });
  });

  it('relays a 204 that wrongly carries a body as a 204 without it, and says so in the history', async () => {
    const liar = net.createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\nX-Dest: kept\r\n\r\nhello'));
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    try {
      const res = await proxy('/proxy', { url: `http://127.0.0.1:${(liar.address() as net.AddressInfo).port}`, headers: { 'BT-TRACE-ID': 'no-content-1' } });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['x-dest']).toBe('kept');
      expect(res.headers['bt-proxy-destination-status']).toBe('204');
      await t.engine.history.flush();
      const entry = (await t.engine.history.list(20)).find((e) => e.trace_id === 'no-content-1')!;
      const details = entry.details as { failure?: unknown; warnings: string[] };
      expect(details.failure).toBeUndefined();
      expect(details.warnings).toEqual(expect.arrayContaining([expect.stringContaining('body with its 204 answer')]));
    } finally {
      liar.close();
    }
  });

  it('refuses a path whose ".." segments climb out of the proxy URL, sent as is', async () => {
    const { head, body } = await rawExchange(
      t.engine.port,
      `GET /proxy/../../x HTTP/1.1\r\nHost: 127.0.0.1:${t.engine.port}\r\nBT-API-KEY: ${useKey}\r\nBT-PROXY-URL: ${echo}/base/\r\n\r\n`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 400/);
    expect(head).not.toMatch(/bt-proxy-destination-status/i);
    expect(JSON.parse(body).proxy_error).toMatchObject({ status: 400, detail: expect.stringContaining('climbs out of the path of BT-PROXY-URL') });
  });

  it('detokenizes a body that is not UTF-8 (a multipart upload with a binary part), keeping every other byte', async () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x7b, 0xc3, 0x28, 0x7d, 0x80]);
    const part = (headers: string, content: string | Buffer) => [Buffer.from(`--b0undary\r\n${headers}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')];
    const body = (pan: string, suffix: string) =>
      Buffer.concat([
        ...part('Content-Disposition: form-data; name="file"; filename="scan.bin"', binary),
        ...part('Content-Disposition: form-data; name="pan"', pan),
        ...part('Content-Disposition: form-data; name="name"', suffix),
        Buffer.from('--b0undary--\r\n'),
      ]);
    const sent = body(`{{ ${cardId} | json: '$.number' }}`, `{{ ${cardId} | json: '$.cvc' | prepend: 'Zoë ' }}`);
    const res = await proxy('/proxy/upload', { raw: sent, headers: { 'content-type': 'multipart/form-data; boundary=b0undary', 'BT-TRACE-ID': 'binary-body' } });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.body.body_base64, 'base64')).toEqual(body(PAN, 'Zoë 321'));
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'binary-body')!;
    const outbound = (entry.details as any).outbound.detokenized_body as string;
    expect(outbound).toContain('XXXXXXXXXXXX3184');
    expect(JSON.stringify(entry)).not.toContain(PAN);
    // The expression itself must still be UTF-8.
    const badExpression = Buffer.concat([binary, Buffer.from(`{{ ${cardId} | append: '`), Buffer.from([0xe9]), Buffer.from("' }}")]);
    const refused = await proxy('/proxy', { raw: badExpression, headers: { 'content-type': 'text/plain' } });
    expect(refused.status).toBe(400);
    expect(refused.body.proxy_error.detail).toMatch(/not valid UTF-8/);
  });

  it('sends PFX-PROXY-KEEP-ALIVE and PFX-PROXY-CONNECTION as Keep-Alive and Connection, and drops hop-by-hop headers', async () => {
    const res = await proxy('/proxy', {
      body: {},
      headers: { 'BT-PROXY-KEEP-ALIVE': 'timeout=5, max=100', 'BT-PROXY-CONNECTION': 'keep-alive', TE: 'trailers', 'Proxy-Authorization': 'Basic eA==' },
    });
    expect(res.body.headers['keep-alive']).toBe('timeout=5, max=100');
    expect(res.body.headers['te']).toBeUndefined();
    expect(res.body.headers['proxy-authorization']).toBeUndefined();
  });

  it('accepts proxy:invoke as token:use', async () => {
    const app = await t.call('POST', '/applications', {
      key: t.managementKey,
      body: { name: 'invoker', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['proxy:invoke'] }] },
    });
    const res = await proxy('/proxy', { key: app.body.key, body: { n: `{{ ${cardId} | json: '$.number' }}` } });
    expect(JSON.parse(res.body.body)).toEqual({ n: PAN });
  });
});

describe('bodies that arrive in many pieces', () => {
  /** A destination that answers with the SHA-256 and length of what it received, and how it was framed. */
  let digest: TestServer;
  beforeAll(async () => {
    digest = await startServer((req, res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      req.on('data', (c: Buffer) => (hash.update(c), (bytes += c.length)));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ sha256: hash.digest('hex'), bytes, length: req.headers['content-length'] ?? null, chunked: req.headers['transfer-encoding'] ?? null }));
      });
    });
  });
  afterAll(() => digest.close());

  /** POSTs the body as these pieces, each written a few milliseconds after the last, so the service reads them apart. */
  async function sendInPieces(pieces: Buffer[], headers: Record<string, string>): Promise<{ status: number; text: string }> {
    const size = pieces.reduce((n, p) => n + p.length, 0);
    return new Promise((resolve, reject) => {
      const req = http.request(`${t.url}/proxy`, { method: 'POST', headers: { 'BT-API-KEY': useKey, 'content-length': String(size), ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      (async () => {
        for (const piece of pieces) {
          req.write(piece);
          await new Promise((r) => setTimeout(r, 3));
        }
        req.end();
      })();
    });
  }

  /** Cuts `body` at every one of the first `fine` bytes, then in two. */
  const cut = (body: Buffer, fine: number) => [...[...body.subarray(0, fine)].map((b) => Buffer.from([b])), body.subarray(fine, fine + 7), body.subarray(fine + 7)];

  it('detokenizes an expression whose braces came a byte at a time, escaped or not', async () => {
    for (const open of ['{{', '\\u007b\\u007b']) {
      const body = Buffer.from(`{"pan":"${open} ${cardId} | json: '$.number' }}","note":"${'n'.repeat(3000)}"}`);
      const res = await sendInPieces(cut(body, 16), { 'BT-PROXY-URL': echo, 'content-type': 'application/json' });
      expect(res.status, open).toBe(200);
      expect(JSON.parse(JSON.parse(res.text).body).pan, open).toBe(PAN);
    }
  });

  it('forwards a body without expressions byte for byte with its length, and keeps its text in the history', async () => {
    // Cuts fall inside the 2-, 3- and 4-byte characters; the binary body is no UTF-8 at all.
    const text = Buffer.from(`é東🎉 ${'x€'.repeat(6000)} end`);
    const binary = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 131 + 7) % 256));
    for (const [label, body] of [['text', text], ['binary', binary]] as const) {
      const res = await sendInPieces(cut(body, 9), { 'BT-PROXY-URL': digest.url, 'content-type': 'text/plain', 'BT-TRACE-ID': `pieces-${label}` });
      expect(res.status, label).toBe(200);
      expect(JSON.parse(res.text), label).toEqual({
        sha256: createHash('sha256').update(body).digest('hex'),
        bytes: body.length,
        length: String(body.length),
        chunked: null,
      });
    }
    await t.engine.history.flush();
    const entries = await t.engine.history.list(50);
    const kept = (label: string) => entries.find((e) => e.trace_id === `pieces-${label}`)!.request_body as { bytes: number; text: string | null };
    expect(kept('text').bytes).toBe(text.length);
    expect(kept('text').text).toMatch(/^é東🎉 x€x€/);
    expect(kept('binary')).toMatchObject({ bytes: binary.length, text: null });
  });

  it('property: a body sent in pieces reaches the destination exactly as the same body sent whole', async () => {
    const ids = [cardId, (await t.call('POST', '/tokens', { key: useKey, body: { type: 'token', data: 'Zoë "q" \\ 東京 🎉' } })).body.id];
    const piece = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', 'é', '東', '🎉', '{', '}', '%', '&', '=', 'u', '7', 'b') }),
      fc.constantFrom(...ids.map((id) => `{{ ${id} }}`), `{{ ${cardId} | json: '$.number' }}`, '\\u007b\\u007b x }}', '%7B%7B x %7D%7D', '{{'),
    );
    const bodies = fc.tuple(fc.array(piece, { maxLength: 8 }), fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'));
    await fc.assert(
      fc.asyncProperty(bodies, fc.array(fc.nat(), { maxLength: 6 }), async ([parts, type], cutAt) => {
        const body = Buffer.from(type === 'application/json' ? JSON.stringify({ v: parts.join('') }).replace(/\\\\u007b/g, '\\u007b') : parts.join(''));
        const pieces = splitAt(body, cutAt.map((c) => c % (body.length + 1)));
        const headers = { 'BT-PROXY-URL': digest.url, 'content-type': type };
        const whole = await sendInPieces([body], headers);
        const cut = await sendInPieces(pieces, headers);
        expect(cut).toEqual(whole);
      }),
      { numRuns: 60, seed: 31 },
    );
  });
});

describe('proxy errors: {"proxy_error": …} and no destination status', () => {
  const expectProxyError = (res: Awaited<ReturnType<typeof proxy>>, status: number, detail?: RegExp) => {
    expect(res.status).toBe(status);
    expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
    expect(res.body.proxy_error).toMatchObject({ status, type: 'about:blank', title: expect.any(String) });
    if (detail) expect(res.body.proxy_error.detail).toMatch(detail);
  };

  it('400 as a proxy_error for a request with a bare CR in a header, which Node\'s parser refuses', async () => {
    const { port } = new URL(t.url);
    for (const [path, proxied] of [['/proxy/v1', true], ['/tokens', false]] as const) {
      const head = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, `BT-API-KEY: ${useKey}`, `BT-PROXY-URL: ${echo}`, 'X-Note: a\rX-Injected: 1', 'Content-Length: 2'];
      const reply = await rawExchange(Number(port), `${head.join('\r\n')}\r\n\r\n{}`);
      expect(reply.head, path).toMatch(/^HTTP\/1\.1 400 /);
      const problem = { status: 400, detail: 'The request is not well-formed HTTP' };
      expect(JSON.parse(reply.body), path).toMatchObject(proxied ? { proxy_error: problem } : problem);
    }
  });

  it('401 without a key or with an unknown one', async () => {
    expectProxyError(await proxy('/proxy', { key: null, body: {} }), 401);
    expectProxyError(await proxy('/proxy', { key: 'key_local_unknown_unknown_unknown', body: {} }), 401);
  });

  it('403 for a non-private key, a key without token:use, and a token outside its containers', async () => {
    const make = async (body: object) => (await t.call('POST', '/applications', { key: t.managementKey, body })).body.key;
    const publicKey = await make({ name: 'pub', type: 'public', permissions: ['token:create'] });
    expectProxyError(await proxy('/proxy', { key: publicKey, body: {} }), 403, /private/);
    const readOnly = await make({ name: 'reader', type: 'private', permissions: ['token:read'] });
    expectProxyError(await proxy('/proxy', { key: readOnly, body: {} }), 403, /token:use/);
    const generalOnly = await make({
      name: 'general user',
      type: 'private',
      rules: [{ description: 'g', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:use'] }],
    });
    expectProxyError(await proxy('/proxy', { key: generalOnly, body: { n: `{{ ${cardId} }}` } }), 403, /\/pci\/high\//);
    expect((await proxy('/proxy', { key: generalOnly, body: { plain: true } })).status).toBe(200);
  });

  it.each([
    [undefined, /PROXY-URL/i],
    ['not a url', /./],
    ['ftp://example.com/x', /http/],
    ['http://user:pw@127.0.0.1:1/', /userinfo|credentials|user/i],
  ])('400 for PFX-PROXY-URL %j', async (url, detail) => {
    expectProxyError(await proxy('/proxy', { url: url ?? '', body: {} }), 400, detail);
  });

  it('400 for PFX-PROXY-URL given twice, which Node would join into one URL, and for a doubled API key', async () => {
    const { port } = new URL(t.url);
    const send = (headers: string[]) =>
      rawExchange(Number(port), [`POST /proxy/v1 HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...headers, 'Content-Length: 2', '', '{}'].join('\r\n'));
    const twoUrls = await send([`BT-API-KEY: ${useKey}`, `BT-PROXY-URL: ${echo}/a`, 'BT-PROXY-URL: http://169.254.169.254/b']);
    expect(twoUrls.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(twoUrls.body).proxy_error.detail).toBe('The BT-PROXY-URL header is given 2 times; send it once');
    const twoKeys = await send([`BT-API-KEY: ${useKey}`, `BT-API-KEY: ${useKey}`, `BT-PROXY-URL: ${echo}`]);
    expect(JSON.parse(twoKeys.body).proxy_error).toMatchObject({ status: 400, detail: expect.stringContaining('BT-API-KEY') });
    // One URL whose query holds a comma is one value.
    const comma = await proxy('/proxy/v1?ids=1,2', { url: `${echo}/a?x=1,2`, body: {} });
    expect(comma.status).toBe(200);
    expect(comma.body.path).toBe('/a/v1');
  });

  it('400 for link-local and metadata destinations and for the service itself', async () => {
    expectProxyError(await proxy('/proxy', { url: 'http://169.254.169.254/latest/meta-data', body: {} }), 400, /polic|refused|link-local/i);
    expectProxyError(await proxy('/proxy', { url: `http://127.0.0.1:${t.engine.port}/tokens`, body: {} }), 400);
    expectProxyError(await proxy('/proxy', { url: `http://localhost:${t.engine.port}/tokens`, body: {} }), 400);
  });

  it('400 naming the expression for a bad expression, an unknown token or too many expressions', async () => {
    expectProxyError(await proxy('/proxy', { body: { n: `{{ ${cardId} | no_such_filter }}` } }), 400, /no_such_filter/);
    expectProxyError(await proxy('/proxy', { body: { n: '{{ missing-token-id }}' } }), 400, /missing-token-id/);
    // A malformed JSONPath once selected the whole card and sent it.
    expectProxyError(await proxy('/proxy', { body: { n: `{{ ${cardId} | json: '$[' }}` } }), 400, /json: '\$\['.*does not parse/);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, `{{ ${cardId} | json: '$.cvc' }}`]));
    expectProxyError(await proxy('/proxy', { body: many }), 400, /21 expressions/);
  });

  it('400 for an expired token', async () => {
    const id = (await t.call('POST', '/tokens', { key: useKey, body: { type: 'token', data: 'soon gone', expires_at: new Date(Date.now() + 300).toISOString() } })).body.id;
    await new Promise((r) => setTimeout(r, 400));
    expectProxyError(await proxy('/proxy', { body: { v: `{{ ${id} }}` } }), 400, new RegExp(id));
  });

  it('413 for a body over the limit', async () => {
    expectProxyError(await proxy('/proxy', { raw: 'x'.repeat(33 * 1024), headers: { 'content-type': 'text/plain' } }), 413);
  });

  it('502 for a closed port, quickly', async () => {
    expectProxyError(await proxy('/proxy', { url: `http://127.0.0.1:${await closedPort()}`, body: {} }), 502, /refused/);
  });

  it('408 for a destination slower than the timeout', async () => {
    expectProxyError(await proxy('/proxy', { url: `${echo}/delay/3000`, body: {} }), 408);
  });

  it('405 naming the five methods for HEAD and OPTIONS, which never reach the destination', async () => {
    const before = custom.connections();
    for (const method of ['HEAD', 'OPTIONS']) {
      const res = await t.call(method, '/proxy/v1/charges', { key: useKey, headers: { 'BT-PROXY-URL': custom.url } });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST, PUT, PATCH, DELETE');
      expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
      if (method === 'OPTIONS') expectProxyError(res, 405, /does not take OPTIONS/);
    }
    expect(custom.connections()).toBe(before);
  });
});

describe('the proxy in the history', () => {
  it('keeps the request as sent, the outbound request masked, the source of the status and the warnings', async () => {
    await proxy('/proxy/pay?ref={{ not-detokenized }}', {
      headers: { 'BT-TRACE-ID': 'proxy-history-1', 'X-Note': '{{ also-not }}' },
      body: { pan: `{{ ${cardId} | json: '$.number' }}` },
    });
    await proxy('/proxy', { url: `${custom.url}/fail`, headers: { 'BT-TRACE-ID': 'proxy-history-2' }, body: {} });
    await proxy('/proxy', { url: 'ftp://x', headers: { 'BT-TRACE-ID': 'proxy-history-3' }, body: {} });
    await new Promise((r) => setTimeout(r, 50));
    const entries = await t.engine.history.list(100);
    const ok = entries.find((e) => e.trace_id === 'proxy-history-1')!;
    expect(ok.kind).toBe('proxy');
    expect((ok.request_body as any).text).toContain(`{{ ${cardId} | json: '$.number' }}`);
    const details = ok.details as any;
    expect(details.status_source).toBe('destination');
    expect(details.outbound.detokenized_body).toBe(JSON.stringify({ pan: 'XXXXXXXXXXXX3184' }));
    expect(details.expressions).toEqual({ count: 1, token_ids: [cardId] });
    expect(details.warnings.join('\n')).toMatch(/http/);
    expect(details.warnings.join('\n')).toMatch(/X-Note/);
    expect(details.warnings.join('\n')).toMatch(/URL contains a \{\{/);
    expect(details.timings.detokenize_ms).toBeGreaterThanOrEqual(0);
    expect(details.response.status).toBe(200);
    expect((entries.find((e) => e.trace_id === 'proxy-history-2')!.details as any)).toMatchObject({ status_source: 'destination', response: { status: 500 } });
    expect((entries.find((e) => e.trace_id === 'proxy-history-3')!.details as any)).toMatchObject({ status_source: 'proxy', failure: { status: 400 } });
  });

  it('records each expression the proxy wrote as nothing, with where it sits in the body as sent, and no value', async () => {
    const empty = `{{ ${cardId} | json: '$.numbr' }}`;
    const none = `{{ ${cardId} | json: '$.none' }}`;
    const small = `{"pan": "${empty}", "café": "{{ ${cardId} | card_exp: 'MM/YY' }}", "n": ${none}}`;
    // Over 16 KiB, compiled from its bytes: its places are still counted as the text's characters.
    const large = `{"note": "${'é'.repeat(9000)}", "pan": "x${empty}"}`;
    for (const [trace, body] of [['empty-small', small], ['empty-large', large]]) {
      const res = await proxy('/proxy', { raw: body, headers: { 'Content-Type': 'application/json', 'BT-TRACE-ID': trace } });
      expect(res.status).toBe(200);
    }
    await t.engine.history.flush();
    const entries = await t.engine.history.list(50);
    const emptyOf = (trace: string) => (entries.find((e) => e.trace_id === trace)!.details as any).expressions.empty;
    const at = (body: string, expression: string) => ({ expression, from: body.indexOf(expression), to: body.indexOf(expression) + expression.length });
    expect(emptyOf('empty-small')).toEqual([at(small, empty), at(small, none)]);
    expect(emptyOf('empty-large')).toEqual([at(large, empty)]);
    // A request whose expressions all wrote something records none.
    expect((entries.find((e) => e.trace_id === 'proxy-history-1')!.details as any).expressions).not.toHaveProperty('empty');
  });

  it("records a body's outbound form masked when the call happens: a token updated or deleted since changes nothing shown", async () => {
    const id = (await t.call('POST', '/tokens', { key: useKey, body: { type: 'card', data: CARD } })).body.id;
    const live: RequestLogEntry[] = [];
    const onRequest = (entry: RequestLogEntry) => live.push(entry);
    t.engine.events.on('request', onRequest);
    await proxy('/proxy', { headers: { 'BT-TRACE-ID': 'masked-on-request' }, body: { pan: `{{ ${id} | json: '$.number' }}`, id } });
    t.engine.events.off('request', onRequest);
    const masked = JSON.stringify({ pan: 'XXXXXXXXXXXX3184', id });
    const outboundOf = (entry: RequestLogEntry | undefined) => (entry!.details as any).outbound.detokenized_body;
    expect(outboundOf(live.find((e) => e.trace_id === 'masked-on-request'))).toBe(masked);
    await t.engine.history.flush();
    const stored = (await t.engine.history.list(50)).find((e) => e.trace_id === 'masked-on-request')!;
    expect(outboundOf(stored)).toBe(masked);

    // What the call sent is recorded with it: the vault as it is later is never asked.
    const updated = await t.call('PATCH', `/tokens/${id}`, {
      key: t.privateKey,
      body: { data: { ...CARD, number: '5555555555554444' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(updated.status).toBe(200);
    expect(outboundOf(await t.engine.history.get(stored.id))).toBe(masked);
    expect((await t.call('DELETE', `/tokens/${id}`, { key: t.privateKey })).status).toBe(204);
    expect(outboundOf(await t.engine.history.get(stored.id))).toBe(masked);
  });

  it("masks a card number the client wrote itself in the outbound form history shows live and keeps", async () => {
    const live: RequestLogEntry[] = [];
    const onRequest = (entry: RequestLogEntry) => live.push(entry);
    t.engine.events.on('request', onRequest);
    await proxy('/proxy', { headers: { 'BT-TRACE-ID': 'client-card' }, body: { pan: `{{ ${cardId} | json: '$.number' }}`, backup: '4000 0566 5566 5556' } });
    t.engine.events.off('request', onRequest);
    const masked = JSON.stringify({ pan: 'XXXXXXXXXXXX3184', backup: 'XXXX XXXX XXXX 5556' });
    const outboundOf = (entry: RequestLogEntry | undefined) => (entry!.details as any).outbound.detokenized_body;
    expect(outboundOf(live.find((e) => e.trace_id === 'client-card'))).toBe(masked);
    await t.engine.history.flush();
    expect(outboundOf((await t.engine.history.list(50)).find((e) => e.trace_id === 'client-card'))).toBe(masked);
  });

  it("keeps a large body's outbound form as far as history keeps a body, masked when the call happens", async () => {
    const expression = `{{ ${cardId} | json: '$.number' }}`;
    const head = `{"pan":"${expression}","lines":"`;
    const filler = 'x'.repeat(16 * 1024 - 10 - head.length - '","tail":"'.length);
    const sent = `${head}${filler}","tail":"${expression}","more":"${'y'.repeat(2000)}"}`;
    const res = await proxy('/proxy', { raw: sent, headers: { 'content-type': 'application/json', 'BT-TRACE-ID': 'large-masked' } });
    expect(JSON.parse(res.body.body)).toMatchObject({ pan: PAN, tail: PAN });
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'large-masked')!;
    expect((entry.details as any).outbound.detokenized_body).toBe(sent.replaceAll(expression, 'XXXXXXXXXXXX3184').slice(0, 16 * 1024));
  });

  it('never stores the detokenized card number in history, the database or its WAL', async () => {
    await t.engine.history.flush();
    expect(JSON.stringify(await t.engine.history.list(1000))).not.toContain(PAN);
    for (const file of filesIn(t.dataDir!)) {
      expect(readFileSync(file).includes(Buffer.from(PAN)), file).toBe(false);
    }
  });
});
