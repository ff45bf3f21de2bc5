import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoReply, type EchoServer } from '../../electron/engine/echo/echo-server';
import { startTestEngine } from '../support/test-engine';
import { rawExchange } from './support/loopback';

let echo: EchoServer;
beforeAll(async () => {
  echo = await startEchoServer({ port: 0 });
});
afterAll(() => echo.close());

async function call(path: string, init?: RequestInit): Promise<{ status: number; reply: EchoReply }> {
  const res = await fetch(echo.url + path, init);
  return { status: res.status, reply: (await res.json()) as EchoReply };
}

describe('echo server', () => {
  it('describes method, path, repeated query keys and lower-cased headers', async () => {
    const { status, reply } = await call('/v1/charges?expand=a&expand=b&q=x%20y', { headers: { 'X-Trace': 't1' } });
    expect(status).toBe(200);
    expect(reply.method).toBe('GET');
    expect(reply.path).toBe('/v1/charges');
    expect(reply.query).toEqual({ expand: ['a', 'b'], q: 'x y' });
    expect(reply.headers['x-trace']).toBe('t1');
    expect(reply.body).toBe('');
    expect(reply.body_bytes).toBe(0);
  });

  it('echoes a UTF-8 body as text', async () => {
    const { reply } = await call('/', { method: 'POST', body: '{"card":"é"}' });
    expect(reply.body).toBe('{"card":"é"}');
    expect(reply.body_bytes).toBe(Buffer.byteLength('{"card":"é"}'));
    expect(reply.body_base64).toBeUndefined();
  });

  it('echoes a binary body as base64', async () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const { reply } = await call('/upload', { method: 'PUT', body: bytes });
    expect(reply.body).toBeNull();
    expect(Buffer.from(reply.body_base64 ?? '', 'base64')).toEqual(bytes);
    expect(reply.body_bytes).toBe(4);
  });

  it('answers /status/<code> with that status, still echoing', async () => {
    const { status, reply } = await call('/status/503?x=1');
    expect(status).toBe(503);
    expect(reply.path).toBe('/status/503');
    expect(reply.query).toEqual({ x: '1' });
  });

  it('combines /delay and /status', async () => {
    const { status, reply } = await call('/delay/50/status/201', { method: 'POST', body: 'late' });
    expect(status).toBe(201);
    expect(reply.body).toBe('late');
  });

  it('holds a delayed answer while answering others', async () => {
    const aborter = new AbortController();
    let delayedSettled = false;
    const delayed = fetch(`${echo.url}/delay/60000`, { signal: aborter.signal }).finally(() => (delayedSettled = true));
    const { status } = await call('/quick');
    expect(status).toBe(200);
    expect(delayedSettled).toBe(false);
    aborter.abort();
    await expect(delayed).rejects.toThrow();
  });

  it('shows hop-by-hop and repeated headers exactly as they arrived', async () => {
    const { body } = await rawExchange(
      echo.port,
      `GET /raw HTTP/1.1\r\nHost: localhost:${echo.port}\r\nConnection: X-Foo, close\r\nKeep-Alive: timeout=5\r\n` +
        'X-Foo: 1\r\nX-Dup: a\r\nx-dup: b\r\n\r\n',
    );
    const reply = JSON.parse(body) as EchoReply;
    expect(reply.headers).toEqual({
      host: `localhost:${echo.port}`,
      connection: 'X-Foo, close',
      'keep-alive': 'timeout=5',
      'x-foo': '1',
      'x-dup': ['a', 'b'],
    });
  });
});

describe('echo server guards', () => {
  it('answers a body over the limit with a 413 problem, and a rebound Host or a foreign Origin with a 403, before echoing', async () => {
    const guarded = await startEchoServer({ port: 0, maxBodyBytes: 1024, allowedOrigins: ['http://localhost:3000'] });
    try {
      const big = await request(`${guarded.url}/`, { method: 'POST', body: Buffer.alloc(4096, 'a') });
      expect(big.statusCode).toBe(413);
      expect(big.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await big.body.json()).toMatchObject({ status: 413, detail: 'Request body is larger than the limit of 1024 bytes' });

      const rebound = await request(`${guarded.url}/`, { headers: { host: `evil.example:${guarded.port}` } });
      expect(rebound.statusCode).toBe(403);
      expect(await rebound.body.json()).toMatchObject({ status: 403 });
      const foreign = await request(`${guarded.url}/`, { method: 'POST', body: 'x', headers: { origin: 'https://evil.example' } });
      expect(foreign.statusCode).toBe(403);
      await foreign.body.dump();

      // A page allowed by --allow-origin reaches it through the proxy, with its Origin forwarded.
      const allowed = await request(`${guarded.url}/`, { method: 'POST', body: 'x', headers: { origin: 'http://localhost:3000' } });
      expect(allowed.statusCode).toBe(200);
      expect(((await allowed.body.json()) as EchoReply).body).toBe('x');
    } finally {
      await guarded.close();
    }
  });

  it('survives a 95 MB body, which it refuses, and takes its limit from the engine', async () => {
    const t = await startTestEngine({ inMemory: true, echoPort: 0, maxBodyBytes: 2048 });
    try {
      const echoUrl = t.engine.echoUrl!;
      const over = await request(`${echoUrl}/`, { method: 'POST', body: 'a'.repeat(4096) });
      expect(over.statusCode).toBe(413);
      await over.body.dump();

      async function* huge() {
        // NUL bytes: each one would be six characters of JSON in an echo of it.
        const chunk = Buffer.alloc(1024 * 1024);
        for (let i = 0; i < 95; i++) yield chunk;
      }
      const refused = await request(`${echoUrl}/`, { method: 'POST', body: Readable.from(huge()) }).then(
        async (res) => {
          await res.body.dump();
          return res.statusCode;
        },
        (error: { code?: string }) => error.code,
      );
      expect([413, 'UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']).toContain(refused);

      const after = await request(`${echoUrl}/after`);
      expect(after.statusCode).toBe(200);
      expect(((await after.body.json()) as EchoReply).path).toBe('/after');
      expect((await t.call('GET', '/tokens', { key: t.privateKey })).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
