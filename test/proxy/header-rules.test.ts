import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoReply, type EchoServer } from '../../electron/engine/echo/echo-server';
import { resolveDestination } from '../../electron/engine/proxy/destination-url';
import { createForwarder, type Forwarder } from '../../electron/engine/proxy/forwarder';
import { outboundHeaders } from '../../electron/engine/proxy/header-rules';
import { ApiProblem } from '../../electron/engine/server/problem';
import { rawExchange, readAll, startServer, type TestServer } from './support/loopback';
import { forwardAll } from './support/forwarding';

describe('outboundHeaders', () => {
  it('drops hop-by-hop, Host, Content-Length and own headers; keeps the rest in order, casing and duplicates', () => {
    const raw = [
      'Host', 'tokenbench.local',
      'Authorization', 'Bearer sk_test',
      'Connection', 'keep-alive, X-Hop',
      'X-Hop', 'gone',
      'Keep-Alive', 'timeout=5',
      'TE', 'trailers',
      'Trailer', 'X-Sum',
      'Transfer-Encoding', 'chunked',
      'Upgrade', 'websocket',
      'Proxy-Authorization', 'Basic eDp5',
      'Proxy-Connection', 'keep-alive',
      'Content-Length', '12',
      'Expect', '100-continue',
      'BT-API-KEY', 'key_1',
      'bt-proxy-url', 'https://api.example.com',
      'BT-TRACE-ID', 'trace',
      'x-custom', 'one',
      'Content-Type', 'application/json',
      'X-Custom', 'two',
    ];
    expect(outboundHeaders(raw, 'BT')).toEqual({
      headers: ['Authorization', 'Bearer sk_test', 'x-custom', 'one', 'Content-Type', 'application/json', 'X-Custom', 'two'],
      warnings: [],
      templated: [],
    });
  });

  it('turns PFX-PROXY-KEEP-ALIVE and PFX-PROXY-CONNECTION into the destination’s Keep-Alive and Connection, in place', () => {
    const raw = ['Accept', '*/*', 'BT-Proxy-Keep-Alive', 'timeout=30', 'X-A', '1', 'BT-PROXY-CONNECTION', 'keep-alive'];
    expect(outboundHeaders(raw, 'BT').headers).toEqual(['Accept', '*/*', 'Keep-Alive', 'timeout=30', 'X-A', '1', 'Connection', 'keep-alive']);
  });

  it('follows the prefix setting', () => {
    const raw = ['TB-API-KEY', 'k', 'BT-API-KEY', 'not ours', 'TB-PROXY-KEEP-ALIVE', 'max=5'];
    expect(outboundHeaders(raw, 'TB').headers).toEqual(['BT-API-KEY', 'not ours', 'Keep-Alive', 'max=5']);
  });

  it.each([
    ['CR LF in a value', ['X-Note', '4111111111111111\r\nX-Injected: 1']],
    ['LF in a value', ['X-Note', '4111111111111111\nb']],
    ['NUL in a value', ['X-Note', '4111111111111111\0']],
    ['CR in a name', ['X-No\rte', '4111111111111111']],
    ['LF in a mapped value', ['BT-PROXY-CONNECTION', '4111111111111111\r\nX: y']],
  ])('refuses %s with a 400 that does not echo the value', (_name, raw) => {
    let thrown: unknown;
    try {
      outboundHeaders(raw, 'BT');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiProblem);
    expect((thrown as ApiProblem).status).toBe(400);
    expect((thrown as ApiProblem).detail).not.toContain('4111111111111111');
  });

  it('ignores forbidden characters in headers it drops anyway', () => {
    expect(outboundHeaders(['BT-API-KEY', 'a\nb', 'X-Ok', '1'], 'BT').headers).toEqual(['X-Ok', '1']);
  });

  it('warns that a token expression in a header is not detokenized, and notes where proxy expressions are', () => {
    const { headers, warnings, templated } = outboundHeaders(['X-Card', '{{ tok_123 }}', 'X-Sig', '{{ proxy.request.body | size }}', 'X-Both', '{{proxy.config.a}} {{ tok_1 }}'], 'BT');
    expect(headers).toEqual(['X-Card', '{{ tok_123 }}', 'X-Sig', '{{ proxy.request.body | size }}', 'X-Both', '{{proxy.config.a}} {{ tok_1 }}']);
    expect(templated).toEqual([2, 4]);
    expect(warnings.map((w) => w.outside)).toEqual([[{ part: 'header', name: 'X-Card' }], [{ part: 'header', name: 'X-Both' }]]);
    warnings.pop();
    expect(warnings).toEqual([
      { message: 'header X-Card contains a {{ token expression; token expressions are detokenized only in the body', outside: [{ part: 'header', name: 'X-Card' }] },
    ]);
  });
});

describe('headers that reach a real destination', () => {
  let echo: EchoServer;
  let forwarder: Forwarder;
  let front: TestServer;

  beforeAll(async () => {
    echo = await startEchoServer({ port: 0 });
    forwarder = createForwarder({ timeoutMs: 10_000, denyPrivateDestinations: false, ownPorts: () => [] });
    // Stands in for the proxy route: raw client headers in, destination answer out.
    front = await startServer(async (req, res) => {
      const body = await readAll(req);
      const { origin, path } = resolveDestination(req.headers['bt-proxy-url'] as string, req.url ?? '', 'BT');
      const result = await forwardAll(forwarder, { origin, path, method: req.method ?? 'GET', headers: outboundHeaders(req.rawHeaders, 'BT').headers, body });
      const answer = result.body;
      res.writeHead(result.status, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer);
    });
  });
  afterAll(async () => {
    await front.close();
    await forwarder.close();
    await echo.close();
  });

  it('strips hop-by-hop and service headers, keeps duplicates, and sets the destination’s own Host', async () => {
    const payload = '{"a":1}';
    const { body } = await rawExchange(
      front.port,
      [
        'POST /proxy/v1/charges?x=1 HTTP/1.1',
        `Host: 127.0.0.1:${front.port}`,
        'Connection: X-Foo',
        'X-Foo: must-not-pass',
        'Keep-Alive: timeout=99',
        'TE: trailers',
        'Upgrade: h2c',
        'Proxy-Authorization: Basic cHJveHk6cGFzcw==',
        'BT-API-KEY: key_secret',
        `BT-PROXY-URL: ${echo.url}/base/`,
        'Authorization: Bearer sk_live',
        'X-Dup: first',
        'X-Dup: second',
        'Content-Type: application/json',
        `Content-Length: ${payload.length}`,
        '',
        payload,
      ].join('\r\n'),
    );
    const reply = JSON.parse(body) as EchoReply;
    expect(reply.path).toBe('/base/v1/charges');
    expect(reply.body).toBe(payload);
    for (const name of ['x-foo', 'keep-alive', 'te', 'upgrade', 'proxy-authorization', 'bt-api-key', 'bt-proxy-url']) {
      expect(reply.headers).not.toHaveProperty(name);
    }
    expect(reply.headers.host).toBe(new URL(echo.url).host);
    expect(reply.headers.connection).toBe('keep-alive'); // undici's own, not the client's X-Foo
    expect(reply.headers['x-dup']).toEqual(['first', 'second']);
    expect(reply.headers.authorization).toBe('Bearer sk_live');
    expect(reply.headers['content-length']).toBe(String(payload.length));
  });
});
