import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Bytes Node's HTTP parser refuses (CR in a header, Content-Length with Transfer-Encoding, two lengths, a huge header)
 * get a JSON proxy_error like every other failure of the proxy itself. Random requests through /proxy are the fuzz
 * property's (test/fuzz/properties.ts).
 */
let t: TestEngine;
let key: string;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'raw', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:use'] }] },
  });
  key = app.body.key;
});
afterAll(() => t.stop());

it('answers raw requests with CR/LF in headers, CL+TE smuggling and huge headers with a proxy_error', async () => {
  const send = (head: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = net.connect(t.engine.port, '127.0.0.1', () => socket.write(head));
      let data = '';
      socket.on('data', (c) => (data += c));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 2000);
    });
  const base = `POST /proxy HTTP/1.1\r\nHost: 127.0.0.1\r\nBT-API-KEY: ${key}\r\nBT-PROXY-URL: ${t.engine.echoUrl}\r\n`;
  for (const head of [
    `${base}X-Bad: a\rb\r\nContent-Length: 0\r\n\r\n`,
    `${base}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    `${base}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
    `${base}X-Huge: ${'a'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`,
  ]) {
    const answer = await send(head);
    expect(answer).toMatch(/^HTTP\/1\.1 4(00|31) /);
    // Like every other failure of the proxy itself (docs/api.md, Proxy).
    expect(answer).toContain('Content-Type: application/json');
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(json.proxy_error.status).toBeGreaterThanOrEqual(400);
  }
});
