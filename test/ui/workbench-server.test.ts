import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../electron/engine';
import type { LiveEvent } from '../../shared/workbench/live-contract';
import { openLive, rawGet } from '../support/live-stream';
import { callApi, startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** A stand-in for `out/renderer`: the engine serves whatever the build put there. */
const uiDir = tempDir('tokenbench-ui-');
mkdirSync(join(uiDir, 'assets'));
const BUILD_NONCE = 'bUiLdNoNcE123456';
writeFileSync(
  join(uiDir, 'index.html'),
  `<!doctype html><meta http-equiv="Content-Security-Policy" content="style-src 'self' 'nonce-${BUILD_NONCE}'"><meta name="tokenbench-style-nonce" content="${BUILD_NONCE}"><title>Tokenbench</title><script type="module" src="./assets/app-1a2b.js"></script>`,
);
writeFileSync(join(uiDir, 'assets', 'app-1a2b.js'), 'console.log("workbench")');
writeFileSync(join(uiDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
afterAll(() => rmSync(uiDir, { recursive: true, force: true }));

let bench: TestEngine;
let session: string;
beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, browserWorkbench: { uiDir } });
  session = bench.engine.browserWorkbench!.session;
});
afterEach(() => bench.stop());

const withSession = (value = session) => ({ headers: { 'X-Tokenbench-Session': value } });

async function statusOf(path: string): Promise<number> {
  const res = await rawGet(bench.url, path);
  res.resume();
  return res.statusCode!;
}

describe('the browser workbench served by the engine', () => {
  it('prints an address that carries the session in the fragment only', () => {
    expect(bench.engine.browserWorkbench!.url).toBe(`${bench.url}/ui/#session=${session}`);
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('serves the build under /ui/ with its content types and a strict CSP', async () => {
    const page = await callApi(bench.url, 'GET', '/ui/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<title>Tokenbench</title>');
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');

    const script = await callApi(bench.url, 'GET', '/ui/assets/app-1a2b.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toContain('immutable');
    expect((await callApi(bench.url, 'GET', '/ui/favicon.svg')).headers['content-type']).toBe('image/svg+xml');

    const head = await request(`${bench.url}/ui/index.html`, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(await head.body.text()).toBe('');

    const bare = await request(`${bench.url}/ui`);
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/ui/');
  });

  it('gives every page load a style nonce of its own, the same in the header and the page, never the build\'s', async () => {
    const nonces = [];
    for (const path of ['/ui/', '/ui/index.html']) {
      const page = await callApi(bench.url, 'GET', path);
      const inHeader = /'nonce-([^']+)'/.exec(page.headers['content-security-policy'] as string)![1];
      expect(page.text).toContain(`'nonce-${inHeader}'`);
      expect(page.text).toContain(`<meta name="tokenbench-style-nonce" content="${inHeader}">`);
      expect(page.text).not.toContain(BUILD_NONCE);
      expect(page.headers['cache-control']).toBe('no-store');
      nonces.push(inHeader);
    }
    expect(new Set(nonces).size).toBe(2);
  });

  it('serves nothing outside the build', async () => {
    expect(await statusOf('/ui/missing.js')).toBe(404);
    expect(await statusOf('/ui/../package.json')).toBe(404);
    expect(await statusOf('/ui/%2e%2e/package.json')).toBe(404);
    expect(await statusOf('/ui/assets/../../index.html')).toBe(404);
    expect((await callApi(bench.url, 'POST', '/ui/')).status).toBe(404);
  });

  it("answers /_workbench/ only to this run's session, in the header", async () => {
    for (const attempt of [null, 'not-the-session', session.slice(1)]) {
      const refused = await bench.workbench('getStatus', {}, { session: attempt });
      expect(refused.status).toBe(401);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.body.detail).toContain('tokenbench serve');
    }
    // The query form is for the EventSource stream alone.
    expect((await callApi(bench.url, 'POST', `/_workbench/getStatus?session=${session}`, { body: {} })).status).toBe(401);

    const status = await bench.workbench('getStatus');
    expect(status.status).toBe(200);
    expect(status.headers['cache-control']).toBe('no-store');
    expect(status.body).toEqual(bench.engine.status());
  });

  it('keeps the Host and Origin guards in front of the workbench', async () => {
    const foreign = await bench.workbench('getStatus', {}, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const rebound = await callApi(bench.url, 'GET', '/ui/', { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
  });

  it('takes a call as POST and a stream as GET; other methods get 405, names outside the method table 404', async () => {
    const get = await callApi(bench.url, 'GET', '/_workbench/getStatus', withSession());
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    const postLive = await callApi(bench.url, 'POST', '/_workbench/live', withSession());
    expect(postLive.status).toBe(405);
    expect(postLive.headers.allow).toBe('GET');
    for (const name of ['tokens', 'toString', '__proto__', 'constructor', '']) {
      expect((await bench.workbench(name)).status, name).toBe(404);
    }
  });

  it('validates every request against its row of the method table, and answers a problem naming the field', async () => {
    const bad = await bench.workbench('listHistory', { limit: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty('limit');
    const extra = await bench.workbench('getStatus', { sneaky: true });
    expect(extra.status).toBe(400);
    const notJson = await callApi(bench.url, 'POST', '/_workbench/listHistory', { raw: '{"limit":', headers: { ...withSession().headers, 'content-type': 'application/json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.detail).toContain('not valid JSON');
  });

  it('lists the history newest first, validates the page size, and leaves its own calls out of it', async () => {
    await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'a' } });
    await bench.call('GET', '/tokens/nope', { key: bench.privateKey });
    await bench.workbench('getStatus');
    await callApi(bench.url, 'GET', '/ui/');

    const page = await bench.workbench('listHistory', { limit: 10 });
    expect(page.status).toBe(200);
    expect(page.body.map((e: { method: string; path: string; status: number }) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'GET /tokens/nope 404',
      'POST /tokens 201',
    ]);
    const older = await bench.workbench('listHistory', { limit: 10, before: page.body[0].id });
    expect(older.body).toHaveLength(1);
  });

  it('lists every transaction with its state, time left and operations, token data masked', async () => {
    const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
    const staged = await bench.call('POST', '/tokens', {
      key: bench.privateKey,
      body: { type: 'card_number', data: '4242424242424242' },
      headers: { 'BT-TRANSACTION-ID': opened.body.id },
    });
    expect(staged.status).toBe(201);
    const listed = await bench.workbench('listTransactions', {});
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      transactions: [{ id: opened.body.id, state: 'open', operations: [{ token_id: staged.body.id, operation: 'create', data: 'XXXXXXXXXXXX4242' }] }],
      next: null,
      counts: { kept: 1, open: 1 },
    });
    expect(listed.body.transactions[0].time_left_ms).toBeGreaterThan(0);
    expect(listed.text).not.toContain('4242424242424242');
  });

  it('streams live history with the status over Server-Sent Events, the session in the query', async () => {
    const refused = await openLive<LiveEvent>(bench.url, 'session=wrong');
    expect(refused.status).toBe(401);
    refused.close();

    const live = await openLive<LiveEvent>(bench.url, `session=${session}`);
    expect(live.status).toBe(200);
    expect(live.contentType).toBe('text/event-stream; charset=utf-8');
    expect(await live.next()).toMatchObject({ type: 'connected', status: { tokenCount: 0, url: bench.url } });

    await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'canary-plaintext-7731' } });
    const update = await live.next();
    expect(update).toMatchObject({ type: 'update', status: { tokenCount: 1 }, entries: [{ method: 'POST', path: '/tokens', status: 201 }] });
    expect(JSON.stringify(update)).not.toContain('canary-plaintext-7731');

    // Transactions travel the same road, each in its latest state.
    const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
    expect(opened.status).toBe(201);
    expect(await live.next()).toMatchObject({ type: 'update', transactions: [{ id: opened.body.id, state: 'open', operations: [] }] });
    live.close();
  });

  it('refuses to start without a built UI, and says how to build one', async () => {
    const empty = tempDir('tokenbench-no-ui-');
    await expect(startEngine({ port: 0, echoPort: null, browserWorkbench: { uiDir: empty } })).rejects.toThrow('npm run build');
    rmSync(empty, { recursive: true, force: true });
  });
});
