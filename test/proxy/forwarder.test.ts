import { createHash } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoReply, type EchoServer } from '../../electron/engine/echo/echo-server';
import { createForwarder, ForwardError, forwardFailure, type ForwardRequest, type Forwarder, type ForwarderOptions } from '../../electron/engine/proxy/forwarder';
import { outboundHeaders } from '../../electron/engine/proxy/header-rules';
import { closedPort, startServer, type TestServer } from './support/loopback';
import { forwardAll, getRequest, rejectionOf, relay, target } from './support/forwarding';

const servers: Array<{ close(): Promise<void> }> = [];
let echo: EchoServer;

beforeAll(async () => {
  echo = await startEchoServer({ port: 0 });
});
afterAll(async () => {
  for (const s of servers.reverse()) await s.close();
  await echo.close();
});

function forwarder(options: Partial<ForwarderOptions> = {}): Forwarder {
  const created = createForwarder({ timeoutMs: 10_000, denyPrivateDestinations: false, ownPorts: () => [], ...options });
  servers.push(created);
  return created;
}

async function server(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}


async function echoed(f: Forwarder, req: ForwardRequest): Promise<EchoReply> {
  const result = await forwardAll(f, req);
  return JSON.parse(result.body.toString('utf8')) as EchoReply;
}

describe('forwarder', () => {
  it('sends method, path, query and body, and returns the destination answer with timings', async () => {
    const f = forwarder();
    const result = await forwardAll(f, {
      ...target(`${echo.url}/delay/20/status/202?a=1&a=2`),
      method: 'PATCH',
      headers: ['Content-Type', 'text/plain'],
      body: Buffer.from('card 4242'),
    });
    expect(result.status).toBe(202);
    expect(result.headers).toContain('content-type');
    expect(result.headersMs).toBeGreaterThan(0);
    const reply = JSON.parse(result.body.toString()) as EchoReply;
    expect(reply).toMatchObject({ method: 'PATCH', path: '/delay/20/status/202', query: { a: ['1', '2'] }, body: 'card 4242' });
    expect(reply.headers['content-length']).toBe('9');
  });

  it('maps a closed port to 502 unreachable', async () => {
    const err = await rejectionOf(forwardAll(forwarder(), getRequest(`http://127.0.0.1:${await closedPort()}/`)), ForwardError);
    expect(err).toMatchObject({ kind: 'unreachable', reason: 'refused', status: 502, detail: 'destination unreachable: connection refused' });
  });

  it('maps an unknown host name to 502 unreachable', async () => {
    const err = await rejectionOf(forwardAll(forwarder(), getRequest('http://no-such-host.invalid/')), ForwardError);
    expect(err.kind).toBe('unreachable');
    expect(err.status).toBe(502);
  });

  it('maps a destination slower than the timeout to 408', async () => {
    const err = await rejectionOf(forwardAll(forwarder({ timeoutMs: 300 }), getRequest(`${echo.url}/delay/60000`)), ForwardError);
    expect(err).toMatchObject({ kind: 'timeout', status: 408, detail: 'destination did not answer within 300 ms' });
  });

  it('maps a destination that sends headers and then stalls to 408 on the body stream', async () => {
    const stalling = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part of it');
    });
    const { head, whole } = relay(forwarder({ timeoutMs: 300 }), getRequest(stalling.url));
    expect((await head).status).toBe(200);
    const err = await rejectionOf(whole, ForwardError);
    expect(err).toMatchObject({ kind: 'timeout', status: 408, detail: 'destination did not finish its response within 300 ms' });
  });

  it('maps a client that goes away to "aborted"', async () => {
    let arrived!: () => void;
    const destinationGotIt = new Promise<void>((resolve) => (arrived = resolve));
    const hanging = await server(() => arrived());
    const { forwarding, whole } = relay(forwarder(), getRequest(hanging.url));
    await destinationGotIt;
    forwarding.cancel();
    expect((await rejectionOf(whole, ForwardError)).kind).toBe('aborted');
  });

  it('rejects at once when cancelled before a connection is ready, and never sends that request', async () => {
    let requests = 0;
    const untouched = await server((_req, res) => {
      requests++;
      res.end('no');
    });
    const f = forwarder();
    const { forwarding, whole } = relay(f, getRequest(untouched.url));
    forwarding.cancel();
    expect((await rejectionOf(whole, ForwardError)).kind).toBe('aborted');
    await forwardAll(f, getRequest(untouched.url)); // the connection the first may have opened is used by this one
    expect(requests).toBe(1);
  });

  it('maps a non-HTTP answer to 502 bad_response', async () => {
    const garbage = net.createServer((socket) => socket.resume().end('HELLO THERE\r\n\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise((resolve) => garbage.close(() => resolve())) });
    const err = await rejectionOf(forwardAll(forwarder(), getRequest(`http://127.0.0.1:${(garbage.address() as AddressInfo).port}/`)), ForwardError);
    expect(err).toMatchObject({ kind: 'bad_response', status: 502 });
  });

  it('passes a destination 500 through byte-identical, raw header names and duplicates included', async () => {
    const body = Buffer.concat([Buffer.from('{"error":"boom"}'), Buffer.from([0x00, 0xff, 0x0a])]);
    const failing = await server((_req, res) => {
      res.writeHead(500, 'Internal Server Error', [
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['X-MiXeD-Case', 'v'],
        ['Content-Length', String(body.length)],
      ]);
      res.end(body);
    });
    const result = await forwardAll(forwarder(), getRequest(failing.url));
    expect(result.status).toBe(500);
    const pairs = result.headers.filter((_, i) => i % 2 === 0).map((name, i) => [name, result.headers[i * 2 + 1]]);
    expect(pairs).toEqual(
      expect.arrayContaining([
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['X-MiXeD-Case', 'v'],
      ]),
    );
    expect(pairs.findIndex(([n]) => n === 'Set-Cookie')).toBeLessThan(pairs.findIndex(([n]) => n === 'set-cookie'));
    expect(result.body).toEqual(body);
  });

  it('streams a large response: the first bytes arrive while the destination still holds the rest', async () => {
    const chunk = Buffer.alloc(64 * 1024, 7);
    const chunks = 256; // 16 MiB after the first chunk
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const expected = createHash('sha256');
    expected.update(chunk);
    for (let i = 0; i < chunks; i++) expected.update(chunk);
    const big = await server(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(chunk);
      await gate;
      for (let i = 0; i < chunks; i++) {
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    });
    const received = createHash('sha256');
    let bytes = 0;
    let firstArrived!: () => void;
    const first = new Promise<void>((resolve) => (firstArrived = resolve));
    // A sink that is always full: every chunk pauses the destination until the sink asks for more.
    let resumes = 0;
    const forwarding = forwarder().forward(getRequest(big.url), {
      start: () => undefined,
      write(data) {
        received.update(data);
        bytes += data.length;
        firstArrived(); // the destination is still waiting on the gate
        setImmediate(() => {
          resumes++;
          forwarding.resume();
        });
        return false;
      },
      end: () => undefined,
    });
    await first;
    release();
    await forwarding.done;
    expect(bytes).toBe(chunk.length * (chunks + 1));
    expect(received.digest('hex')).toBe(expected.digest('hex'));
    expect(resumes).toBeGreaterThan(1);
  });

  it('delivers the client’s Keep-Alive and Connection values (PFX-PROXY-KEEP-ALIVE / PFX-PROXY-CONNECTION)', async () => {
    const { headers } = outboundHeaders(['BT-PROXY-KEEP-ALIVE', 'timeout=7, max=50', 'BT-PROXY-CONNECTION', 'keep-alive, X-Trace-Hop', 'X-Trace-Hop', '1'], 'BT');
    const reply = await echoed(forwarder(), getRequest(`${echo.url}/ka`, headers));
    expect(reply.headers['keep-alive']).toBe('timeout=7, max=50');
    // undici's own connection line carries keep-alive; the client's other tokens follow (HTTP reads both as one list).
    expect([reply.headers.connection].flat().join(', ')).toBe('keep-alive, X-Trace-Hop');
    expect(reply.headers['x-trace-hop']).toBe('1');
    expect(Object.keys(reply.headers).filter((name) => name.startsWith('x-tokenbench'))).toEqual([]);
  });

  it('sends Connection: close once when the client asks for it, and then opens a fresh connection', async () => {
    const seen: string[] = [];
    const counting = await server((req, res) => {
      seen.push(String(req.headers.connection));
      res.end('ok');
    });
    const f = forwarder();
    await forwardAll(f, getRequest(counting.url, ['Connection', 'close']));
    await forwardAll(f, getRequest(counting.url));
    expect(seen).toEqual(['close', 'keep-alive']);
    expect(counting.connections()).toBe(2);
  });

  it('reuses pooled keep-alive connections and never exceeds the per-origin limit', async () => {
    const pooled = await server((_req, res) => setTimeout(() => res.end('ok'), 10));
    const f = forwarder({ connections: 2 });
    const burst = await Promise.all(Array.from({ length: 10 }, () => forwardAll(f, getRequest(pooled.url))));
    expect(burst.map((r) => String(r.body))).toEqual(Array(10).fill('ok'));
    for (let i = 0; i < 5; i++) await forwardAll(f, getRequest(pooled.url));
    expect(pooled.connections()).toBeGreaterThan(0);
    expect(pooled.connections()).toBeLessThanOrEqual(2);
  });
});

describe('forwardFailure', () => {
  it('classifies network errors and leaves service faults alone', () => {
    expect(forwardFailure(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toMatchObject({ kind: 'unreachable', reason: 'reset', detail: 'destination unreachable: connection reset' });
    expect(forwardFailure(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toMatchObject({
      kind: 'unreachable',
      reason: 'tls',
      detail: 'destination unreachable: TLS failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
    });
    expect(forwardFailure(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }))).toMatchObject({ kind: 'unreachable', reason: 'network', detail: 'destination unreachable: ETIMEDOUT' });
    expect(forwardFailure(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toMatchObject({ kind: 'unreachable', reason: 'dns', detail: 'destination unreachable: host name not found' });
    expect(forwardFailure(Object.assign(new Error('x'), { code: 'UND_ERR_INVALID_ARG' }))).toBeUndefined();
    expect(forwardFailure(Object.assign(new Error('x'), { code: 'ERR_INVALID_ARG_TYPE' }))).toBeUndefined();
    expect(forwardFailure(new Error('plain bug'))).toBeUndefined();
  });
});
