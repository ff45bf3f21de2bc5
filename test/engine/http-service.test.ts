import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-request';
import { startTestEngine, type TestEngine } from '../support/test-engine';

let t: TestEngine;
/** What the engine logged. */
const logged: string[] = [];
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, maxBodyBytes: 64 * 1024, log: (line) => logged.push(line) });
});
afterAll(() => t.stop());

describe('Host and Origin guards', () => {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

  it.each(methods)('refuses a foreign Host with 403 before reading the body (%s)', async (method) => {
    for (const host of ['evil.example', `evil.example:${t.engine.port}`, `localhost.evil.example:${t.engine.port}`, `127.0.0.1:1`]) {
      const response = await rawRequest(
        t.engine.port,
        `${method} /tokens HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      );
      expect(response).toMatch(/^HTTP\/1\.1 403/);
      expect(response).toContain('Host header');
    }
  });

  it.each(methods)('refuses a foreign Origin with 403 for %s and never allows any origin', async (method) => {
    const res = await t.call(method, '/tokens', { key: t.privateKey, headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  /** The status line and the parsed body of a raw answer. */
  function parsed(response: string): { status: number; head: string; body: any } {
    const at = response.indexOf('\r\n\r\n');
    return { status: Number(response.slice(9, 12)), head: response.slice(0, at), body: JSON.parse(response.slice(at + 4)) };
  }

  it('answers a request without Host, or with two, with a 400 problem naming the header', async () => {
    const none = parsed(await rawRequest(t.engine.port, `GET /tokens HTTP/1.1\r\nBT-API-KEY: ${t.privateKey}\r\n\r\n`));
    expect(none.status).toBe(400);
    expect(none.head).toMatch(/content-type: application\/problem\+json/i);
    expect(none.body).toMatchObject({ type: 'about:blank', status: 400, detail: 'The Host header is required' });
    for (const hosts of [['127.0.0.1', 'evil.example'], ['localhost', 'localhost']]) {
      const twice = parsed(
        await rawRequest(t.engine.port, `GET /tokens HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}:${t.engine.port}\r\n`).join('')}BT-API-KEY: ${t.privateKey}\r\n\r\n`),
      );
      expect(twice.status).toBe(400);
      expect(twice.body).toMatchObject({ status: 400, detail: 'The Host header is given 2 times; send it once' });
    }
  });

  it('takes an absolute-form request target, guarding the host it names instead of Host', async () => {
    const port = t.engine.port;
    const absolute = (authority: string, path: string) =>
      rawRequest(port, `GET http://${authority}${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nBT-API-KEY: ${t.privateKey}\r\n\r\n`);
    const list = parsed(await absolute(`localhost:${port}`, '/tokens?size=1'));
    expect(list.status).toBe(200);
    expect(list.body.pagination.page_size).toBe(1);
    const rebound = parsed(await absolute(`evil.example:${port}`, '/tokens'));
    expect(rebound.status).toBe(403);
    const proxied = parsed(await absolute(`127.0.0.1:${port}`, '/proxy'));
    expect(proxied.status).toBe(400);
    expect(proxied.body.proxy_error).toMatchObject({ status: 400, detail: 'BT-PROXY-URL header is required' });
  });

  it('refuses a foreign Host or Origin on /proxy as a proxy_error, like every other failure of the proxy', async () => {
    const byHost = await rawRequest(t.engine.port, `POST /proxy/v1 HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 2\r\n\r\n`);
    expect(byHost).toMatch(/^HTTP\/1\.1 403/);
    expect(JSON.parse(byHost.slice(byHost.indexOf('\r\n\r\n') + 4)).proxy_error).toMatchObject({ status: 403, detail: expect.stringContaining('Host header') });
    const byOrigin = await t.call('GET', '/proxy', { key: t.privateKey, headers: { origin: 'https://evil.example', 'BT-PROXY-URL': 'http://127.0.0.1:9' } });
    expect(byOrigin.status).toBe(403);
    expect(byOrigin.body.proxy_error.status).toBe(403);
  });

  it('accepts the local host names with and without the port', async () => {
    for (const host of ['localhost', `localhost:${t.engine.port}`, `127.0.0.1:${t.engine.port}`, `[::1]:${t.engine.port}`, '[::1]']) {
      const res = await t.call('GET', '/applications/key', { key: t.privateKey, headers: { host } });
      expect(res.status, host).toBe(200);
    }
  });

  it('refuses a cross-site text/plain form POST without a key and writes nothing', async () => {
    const before = t.engine.status().tokenCount;
    const res = await t.call('POST', '/tokens', {
      raw: '{"type":"token","data":"csrf"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(401);
    const fromPage = await t.call('POST', '/tokens', {
      raw: '{"type":"token","data":"csrf"}',
      headers: { 'content-type': 'text/plain', origin: 'http://attacker.test' },
    });
    expect(fromPage.status).toBe(403);
    expect(t.engine.status().tokenCount).toBe(before);
  });
});

describe('HTTP conventions', () => {
  it('answers 404 in problem format for an unknown route', async () => {
    const res = await t.call('GET', '/no/such/route', { key: t.privateKey });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, title: 'Not Found' });
    // Refusals before any route carry the trace id too, so a client can find them in the history.
    const traced = { key: t.privateKey, headers: { 'BT-TRACE-ID': 'refusal-1' } };
    expect((await t.call('GET', '/no/such/route', traced)).headers['bt-trace-id']).toBe('refusal-1');
    expect((await t.call('PUT', '/tokens', traced)).headers['bt-trace-id']).toBe('refusal-1');
    const foreign = await t.call('GET', '/tokens', { ...traced, headers: { ...traced.headers, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['bt-trace-id']).toBe('refusal-1');
  });

  it('answers 405 with the methods a known path takes, in problem format, and records it', async () => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'kept' } });
    const res = await t.call('PUT', `/tokens/${created.body.id}`, { key: t.privateKey, body: { data: 'replaced' } });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(res.body).toMatchObject({ status: 405, title: 'Method Not Allowed', detail: expect.stringContaining('does not take PUT') });
    expect((await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey })).status).toBe(200);
    const options = await t.call('OPTIONS', '/tokens', { key: t.privateKey, headers: { 'BT-TRACE-ID': 'options-1' } });
    expect(options.headers.allow).toBe('GET, HEAD, POST');
    const entries = await t.engine.history.list(20);
    expect(entries.find((e) => e.trace_id === 'options-1')).toMatchObject({ method: 'OPTIONS', path: '/tokens', status: 405 });
  });

  it('refuses a body nested deeper than 100 levels with 400, writes nothing and keeps serving', async () => {
    const before = t.engine.status().tokenCount;
    const nested = (levels: number) => `${'['.repeat(levels)}"[]{}\\"["${']'.repeat(levels)}`;
    const create = await t.call('POST', '/tokens', {
      key: t.privateKey,
      raw: `{"type":"token","data":"x","note":${nested(5000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(create.status).toBe(400);
    expect(create.body.detail).toMatch(/deeper than 100 levels/);
    const detokenize = await t.call('POST', '/detokenize', { key: t.privateKey, raw: nested(3000), headers: { 'content-type': 'application/json' } });
    expect(detokenize.status).toBe(400);
    expect(t.engine.status().tokenCount).toBe(before);
    // Brackets inside strings do not count, and 100 levels are still accepted.
    const deepest = await t.call('POST', '/tokens', { key: t.privateKey, raw: `{"type":"token","data":${nested(99)}}`, headers: { 'content-type': 'application/json' } });
    expect(deepest.status).toBe(201);
    expect((await t.call('GET', '/tokens', { key: t.privateKey })).status).toBe(200);
  });

  it('refuses a token id with a lone surrogate, so listing and search keep working', async () => {
    const raw = '{"id":"bad-\\ud800-id","type":"token","data":"x"}';
    const res = await t.call('POST', '/tokens', { key: t.privateKey, raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/lone UTF-16 surrogate/);
    expect((await t.call('GET', '/tokens', { key: t.privateKey })).status).toBe(200);
    expect((await t.call('POST', '/tokens/search', { key: t.privateKey, body: { query: '' } })).status).toBe(200);
  });

  it('answers HEAD like GET without the body, behind the same key check', async () => {
    const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'head' } });
    const get = await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey });
    const head = await t.call('HEAD', `/tokens/${created.body.id}`, { key: t.privateKey });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect((await t.call('HEAD', `/tokens/${created.body.id}`)).status).toBe(401);
    expect((await t.call('HEAD', '/tokens/no-such-token', { key: t.privateKey })).status).toBe(404);
  });

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({ type: 'token', data: 'x'.repeat(70 * 1024) });
    const res = await t.call('POST', '/tokens', { key: t.privateKey, raw: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.detail).toContain(String(64 * 1024));
    const head = `POST /tokens HTTP/1.1\r\nHost: 127.0.0.1\r\nBT-API-KEY: ${t.privateKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = 'a'.repeat(40 * 1024);
    const streamed = await new Promise<string>((resolve, reject) => {
      const socket = connect(t.engine.port, '127.0.0.1');
      let data = '';
      socket.on('data', (c) => (data += c.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      socket.write(head);
      for (let i = 0; i < 3; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      socket.write('0\r\n\r\n');
      setTimeout(() => socket.destroy(), 2000);
    });
    expect(streamed).toMatch(/^HTTP\/1\.1 413/);
  });

  it('records a client that closes mid-body as a 400 that says so, not as a service fault', async () => {
    const { port } = new URL(t.url);
    for (const [path, extra] of [['/tokens', ''], ['/proxy/v1', 'BT-PROXY-URL: http://127.0.0.1:9/\r\n']]) {
      const trace = `went-away-${path.length}`;
      const socket = connect(Number(port), '127.0.0.1');
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nBT-API-KEY: ${t.privateKey}\r\nBT-TRACE-ID: ${trace}\r\n${extra}Content-Length: 50000\r\n\r\n{"type"`);
      await new Promise((r) => setTimeout(r, 100));
      socket.destroy();
      let entry;
      for (let tries = 0; !entry && tries < 50; tries++) {
        await new Promise((r) => setTimeout(r, 20));
        await t.engine.history.flush();
        entry = (await t.engine.history.list(20)).find((e) => e.trace_id === trace);
      }
      expect(entry, path).toMatchObject({ status: 400 });
    }
    expect(logged.join('\n')).not.toMatch(/internal error|aborted/);
  });

  it('echoes the trace id, or makes one', async () => {
    const given = await t.call('GET', '/applications/key', { key: t.privateKey, headers: { 'BT-TRACE-ID': 'trace-123' } });
    expect(given.headers['bt-trace-id']).toBe('trace-123');
    const made = await t.call('GET', '/applications/key', { key: t.privateKey });
    expect(made.headers['bt-trace-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('treats a trailing slash as the same route', async () => {
    expect((await t.call('GET', '/tokens/', { key: t.privateKey })).status).toBe(200);
    expect((await t.call('GET', '/applications/key/', { key: t.privateKey })).status).toBe(200);
  });

  it('answers 409 to a repeat while the first request with that idempotency key runs, and replays after', async () => {
    const headers = { 'BT-IDEMPOTENCY-KEY': 'race-1' };
    const body = { type: 'token', data: 'idem' };
    const results = await Promise.all([
      t.call('POST', '/tokenize', { key: t.privateKey, headers, body: Array.from({ length: 100 }, () => body) }),
      t.call('POST', '/tokenize', { key: t.privateKey, headers, body: Array.from({ length: 100 }, () => body) }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    // Either the second arrived while the first ran (409) or after it finished (replayed 200): never two writes.
    expect(statuses[0]).toBe(200);
    if (statuses[1] === 200) expect(results[0].body).toEqual(results[1].body);
    else expect(statuses[1]).toBe(409);
    const otherPath = await t.call('POST', '/tokens', { key: t.privateKey, headers, body });
    expect(otherPath.status).toBe(422);
  });

  it('replays an idempotent request whether or not the repeat ends the path with a slash', async () => {
    const headers = { 'BT-IDEMPOTENCY-KEY': 'slash-1' };
    const first = await t.call('POST', '/tokens', { key: t.privateKey, headers, body: { type: 'token', data: 'once' } });
    const repeat = await t.call('POST', '/tokens/', { key: t.privateKey, headers, body: { type: 'token', data: 'once' } });
    expect(first.status).toBe(201);
    expect(repeat.status).toBe(201);
    expect(repeat.body.id).toBe(first.body.id);
    expect(repeat.headers['bt-idempotency-replayed']).toBe('true');
  });

  it('uses the configured header prefix for every service header', async () => {
    const other = await startTestEngine({ inMemory: true, headerPrefix: 'TB' });
    try {
      expect((await other.call('GET', '/applications/key', { headers: { 'TB-API-KEY': other.privateKey } })).status).toBe(200);
      const res = await other.call('GET', '/applications/key', { key: other.privateKey });
      expect(res.status).toBe(401);
      expect(res.body.detail).toContain('TB-API-KEY');
      expect(res.headers['tb-trace-id']).toBeDefined();
    } finally {
      await other.stop();
    }
  });
});

describe('request log', () => {
  it('records every request with status, duration, application and trace id, secrets cut to a hint', async () => {
    const card = { number: '6011111111111117', expiration_month: 3, expiration_year: 2032 };
    const created = await t.call('POST', '/tokens', { key: t.privateKey, headers: { 'BT-TRACE-ID': 'log-1' }, body: { type: 'card', data: card } });
    await t.call('GET', `/tokens/${created.body.id}`, { key: t.privateKey, headers: { 'BT-TRACE-ID': 'log-2' } });
    const entries = await t.engine.history.list(50);
    const post = entries.find((e) => e.trace_id === 'log-1')!;
    expect(post).toMatchObject({ method: 'POST', path: '/tokens', status: 201, kind: 'api' });
    expect(post.application_id).toEqual(expect.any(String));
    expect(post.duration_ms).toBeGreaterThan(0);
    expect(post.request_body).toMatchObject({ type: 'card', data: '[redacted]' });
    const keyHeader = post.request_headers.find(([n]) => n.toLowerCase() === 'bt-api-key')!;
    expect(keyHeader[1]).toBe(`...${t.privateKey.slice(-4)}`);
    expect(JSON.stringify(entries)).not.toContain('6011111111111117');
    expect(JSON.stringify(entries)).not.toContain(t.privateKey);
    expect(entries.find((e) => e.trace_id === 'log-2')).toMatchObject({ method: 'GET', status: 200 });
  });

  it('cuts every credential header to a hint: those named like a key, token, secret or password too', async () => {
    const secrets = {
      Authorization: 'Bearer sk_live_authorization_1234',
      Cookie: 'session=cookie_value_5678',
      'X-Api-Token': 'tok_custom_header_9012',
      'X-Client-Secret': 'client_secret_value_3456',
      'X-Password': 'password_value_7890',
    };
    await t.call('GET', '/tokens', { key: t.privateKey, headers: { 'BT-TRACE-ID': 'hints-1', 'BT-IDEMPOTENCY-KEY': 'idem-kept-1', 'X-Order': 'o-1', ...secrets } });
    const entry = (await t.engine.history.list(20)).find((e) => e.trace_id === 'hints-1')!;
    const shown = Object.fromEntries(entry.request_headers);
    for (const [name, value] of Object.entries(secrets)) expect(shown[name], name).toBe(`...${value.slice(-4)}`);
    expect([shown['BT-IDEMPOTENCY-KEY'], shown['X-Order']]).toEqual(['idem-kept-1', 'o-1']);
  });

  it('records refused and unknown requests too, so a developer can see why they failed', async () => {
    await t.call('GET', '/tokens', { key: t.privateKey, headers: { 'BT-TRACE-ID': 'refused-1', origin: 'https://evil.example' } });
    await t.call('GET', '/nowhere', { key: t.privateKey, headers: { 'BT-TRACE-ID': 'unknown-1' } });
    const entries = await t.engine.history.list(20);
    expect(entries.find((e) => e.trace_id === 'refused-1')).toMatchObject({ status: 403, path: '/tokens' });
    expect(entries.find((e) => e.trace_id === 'unknown-1')).toMatchObject({ status: 404, path: '/nowhere' });
  });
});
