import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoReply, type EchoServer } from '../../electron/engine/echo/echo-server';
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
      'GET /raw HTTP/1.1\r\nHost: example.test\r\nConnection: X-Foo, close\r\nKeep-Alive: timeout=5\r\n' +
        'X-Foo: 1\r\nX-Dup: a\r\nx-dup: b\r\n\r\n',
    );
    const reply = JSON.parse(body) as EchoReply;
    expect(reply.headers).toEqual({
      host: 'example.test',
      connection: 'X-Foo, close',
      'keep-alive': 'timeout=5',
      'x-foo': '1',
      'x-dup': ['a', 'b'],
    });
  });
});
