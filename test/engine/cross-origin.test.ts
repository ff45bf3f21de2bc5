import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../electron/engine';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

const FRONT_END = 'http://localhost:3000';

const uiDir = tempDir('tokenbench-ui-');
mkdirSync(join(uiDir, 'assets'));
writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>Tokenbench</title>');

let t: TestEngine;
let publicKey: string;
let destination: Server;
let destinationUrl: string;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, allowedOrigins: ['HTTP://LOCALHOST:3000/'], browserWorkbench: { uiDir } });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'browser front end', type: 'public', permissions: ['token:create'] },
  });
  publicKey = app.body.key;
  destination = createServer((req, res) => {
    // A destination with CORS headers of its own, as public APIs often send them.
    const cors = req.url === '/cors' ? [['Access-Control-Allow-Origin', '*'], ['Access-Control-Allow-Credentials', 'true'], ['Access-Control-Expose-Headers', 'X-Own']] : [];
    res.writeHead(200, [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['content-type', 'text/plain'], ...cors].flat());
    res.end('from the destination');
  });
  await new Promise<void>((r) => destination.listen(0, '127.0.0.1', r));
  destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.stop();
  destination.close();
  rmSync(uiDir, { recursive: true, force: true });
});

describe('a browser origin allowed by setting (--allow-origin)', () => {
  it('answers its preflight with the methods of the path and the headers it asked for', async () => {
    const res = await t.call('OPTIONS', '/tokens', {
      headers: { origin: FRONT_END, 'access-control-request-method': 'POST', 'access-control-request-headers': 'bt-api-key,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT_END);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST');
    expect(res.headers['access-control-allow-headers']).toBe('bt-api-key,content-type');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets it create a token with a public key, and grants it the response and its headers', async () => {
    const res = await t.call('POST', '/tokens', {
      key: publicKey,
      body: { type: 'token', data: 'from the browser' },
      headers: { origin: FRONT_END, 'BT-TRACE-ID': 'browser-1' },
    });
    expect(res.status).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT_END);
    expect(res.headers['access-control-expose-headers']).toBe('*');
    expect(res.headers.vary).toBe('Origin');
    expect(res.headers['bt-trace-id']).toBe('browser-1');
  });

  it('grants errors too, so the page can read why it failed', async () => {
    const res = await t.call('GET', '/tokens', { key: publicKey, headers: { origin: FRONT_END } });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT_END);
  });

  /** A call through the proxy made by the allowed page. */
  const proxiedFromPage = (path: string) =>
    t.call('POST', path, { key: t.privateKey, raw: 'plain', headers: { origin: FRONT_END, 'BT-PROXY-URL': destinationUrl, 'content-type': 'text/plain' } });

  it('keeps the destination headers of a proxied answer as they were, duplicates included', async () => {
    const res = await proxiedFromPage('/proxy');
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT_END);
    expect(res.headers['bt-proxy-destination-status']).toBe('200');
  });

  it("answers a proxied call with one Access-Control-Allow-Origin, its own, in place of the destination's CORS grant", async () => {
    const res = await proxiedFromPage('/proxy/cors');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT_END);
    // Credentials are never granted to a page, whatever the destination says.
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']).toBe('*');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it("does not open the workbench's own pages and endpoints to it", async () => {
    expect((await t.call('GET', '/ui/')).status).toBe(200);
    expect((await t.call('GET', '/ui/', { headers: { origin: FRONT_END } })).status).toBe(404);
    const status = await t.workbench('getStatus', {}, { headers: { origin: FRONT_END } });
    expect(status.status).toBe(404);
    expect(status.text).not.toContain('tokenCount');
  });

  it('still refuses every other origin, without a grant', async () => {
    for (const origin of ['http://localhost:3001', 'https://localhost:3000', 'http://evil.example']) {
      const res = await t.call('POST', '/tokens', { key: publicKey, body: { type: 'token', data: 'x' }, headers: { origin } });
      expect(res.status, origin).toBe(403);
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });

  it.each(['*', 'http://localhost:3000/app', 'localhost:3000', 'ftp://localhost'])('refuses the setting %j: it is not an origin', (origin) => {
    expect(() => resolveConfig({ allowedOrigins: [origin] })).toThrow(/not an (http or https )?origin/);
  });
});
