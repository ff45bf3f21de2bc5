import { createRequire } from 'node:module';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { callMethod } from '../../electron/engine';
import { rawRequest } from '../support/raw-request';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** History exported as HAR: valid against the HAR schema, oldest first, masked like History itself. */
const validator = createRequire(import.meta.url)('har-validator') as { har(data: unknown): Promise<unknown> };
const PAN = '4111111111111111';
let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
});
afterEach(() => t.stop());

type HarEntry = {
  request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
  response: { status: number; headers: { name: string; value: string }[] };
  _tokenbench: { kind: string; status_source?: string; outbound?: { detokenized_body?: string } };
};
async function exported(request: unknown): Promise<{ log: { entries: HarEntry[] } }> {
  await t.engine.history.flush();
  return (await callMethod(t.engine.workbench, 'exportHar', request)) as { log: { entries: HarEntry[] } };
}

it('exports the history as a HAR the schema accepts, oldest first, with no plaintext and keys cut to a hint', async () => {
  const card = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: PAN } });
  const echo = { 'BT-PROXY-URL': t.engine.echoUrl!, 'X-Order': 'o-1' };
  expect((await t.call('POST', '/proxy/v1/charges?currency=eur', { key: t.privateKey, body: { pan: `{{ ${card.body.id} }}` }, headers: echo })).status).toBe(200);
  expect((await t.call('POST', '/proxy/status/503', { key: t.privateKey, body: {}, headers: echo })).status).toBe(503);

  const har = await exported({});
  await expect(validator.har(har)).resolves.toBeTruthy();
  const [create, charge, failed] = har.log.entries;
  expect(create.request).toMatchObject({ method: 'POST', url: `${t.url}/tokens` });
  expect(charge.request.url).toBe(`${t.url}/proxy/v1/charges?currency=eur`);
  expect(charge.request.postData?.text).toBe(`{"pan":"{{ ${card.body.id} }}"}`);
  expect(charge.response.status).toBe(200);
  expect(charge.response.headers.map((h) => h.name.toLowerCase())).toContain('content-type');
  expect(charge._tokenbench).toMatchObject({ kind: 'proxy', status_source: 'destination', outbound: { detokenized_body: '{"pan":"XXXXXXXXXXXX1111"}' } });
  expect(failed.response.status).toBe(503);

  const text = JSON.stringify(har);
  expect(text).not.toContain(PAN);
  expect(text).not.toContain(t.privateKey);
  expect(charge.request.headers.find((h) => h.name === 'BT-API-KEY')?.value).toBe(`...${t.privateKey.slice(-4)}`);
});

it('exports a selection by id, or what a filter matches', async () => {
  for (const path of ['/tokens/a', '/tokens/b']) await t.call('GET', path, { key: t.privateKey });
  await t.call('GET', '/tokens', { key: t.privateKey });
  await t.engine.history.flush();
  const [newest] = await t.engine.history.list(1);
  const chosen = await exported({ ids: [newest.id] });
  expect(chosen.log.entries.map((e) => e.request.url)).toEqual([`${t.url}/tokens`]);
  const failures = await exported({ filter: { view: 'failed' } });
  expect(failures.log.entries.map((e) => e.request.url)).toEqual([`${t.url}/tokens/a`, `${t.url}/tokens/b`]);
  await expect(validator.har(failures)).resolves.toBeTruthy();
});

it('exports requests whose JSON body is a bare number, boolean or array (found by npm run fuzz)', async () => {
  for (const raw of ['-28', 'true', '[1,"a"]']) {
    await t.call('POST', '/detokenize', { key: t.privateKey, raw, headers: { 'content-type': 'application/json' } });
  }
  const har = await exported({});
  await expect(validator.har(har)).resolves.toBeTruthy();
  expect(har.log.entries.map((e) => e.request.postData?.text)).toEqual(['-28', 'true', '[1,"a"]']);
});

it('says which workbench page sent a request, and nothing of the kind for any other client', async () => {
  const applicationId = t.engine.bootstrapKeys!.private.application_id;
  const composed = { application_id: applicationId, method: 'GET', path: '/tokens', headers: [], body: null };
  await callMethod(t.engine.workbench, 'sendRequest', { id: 'on-a-page', ...composed }, 'composer');
  await callMethod(t.engine.workbench, 'sendRequest', { id: 'on-no-page', ...composed });
  await t.call('GET', '/tokens', { key: t.privateKey, headers: { 'X-Tokenbench-Page': 'composer' } });

  const har = await exported({});
  await expect(validator.har(har)).resolves.toBeTruthy();
  expect(har.log.entries.map((e) => e._tokenbench)).toMatchObject([
    // The first send as the application made the workbench's key: a change of the workbench's own, on that page.
    { kind: 'workbench', workbench_page: 'composer', change: { action: 'sendRequest' } },
    { kind: 'api', application_id: applicationId, workbench_page: 'composer' },
    { kind: 'api', application_id: applicationId, workbench_page: null },
    { kind: 'api', application_id: applicationId },
  ]);
  expect(har.log.entries[3]._tokenbench).not.toHaveProperty('workbench_page');
});

it("exports each request with the engine's own origin and its target as received, whatever the target", async () => {
  // Targets a web page or a raw client can send (no key needed): scheme-relative, a broken escape, a backslash, a
  // fragment, another scheme's absolute form, the asterisk form.
  const sent: [string, string][] = [
    ['GET //', '//'],
    ['GET //%zz/', '//%25zz/'],
    ['GET ///', '///'],
    ['GET //evil.example/x', '//evil.example/x'],
    ['GET /a\\b?c=%zz', '/a%5Cb?c=%25zz'],
    ['GET /p?q=1#f', '/p?q=1%23f'],
    ['GET ftp://evil.example/y', '/ftp://evil.example/y'],
    ['OPTIONS *', '/*'],
  ];
  for (const [line] of sent) {
    expect(await rawRequest(t.engine.port, `${line} HTTP/1.1\r\nHost: 127.0.0.1:${t.engine.port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 4\d\d /);
  }
  await t.engine.history.flush();
  for (const request of [{}, { filter: { view: 'failed' } }]) {
    const res = await t.workbench('exportHar', request);
    expect(res.status, res.text).toBe(200);
    await expect(validator.har(res.body)).resolves.toBeTruthy();
    const urls = (res.body as { log: { entries: HarEntry[] } }).log.entries.map((entry) => entry.request.url);
    expect(urls).toEqual(sent.map(([, path]) => `${t.url}${path}`));
    for (const url of urls) expect(new URL(url).origin).toBe(t.url);
  }
});

it('answers a large export in pages, newest first, that together hold each request once: all of them or a selection', async () => {
  const filler = 'x'.repeat(20 * 1024);
  const sent = Array.from({ length: 80 }, (_, i) => `big-${i}`);
  for (const trace of sent) {
    await t.call('POST', '/proxy/orders', { key: t.privateKey, body: { trace, filler }, headers: { 'BT-PROXY-URL': t.engine.echoUrl!, 'BT-TRACE-ID': trace } });
  }
  await t.engine.history.flush();
  /** Every page of an export, as the History page asks for them. */
  const pagesOf = async (request: object) => {
    const pages: { log: { entries: (HarEntry & { _tokenbench: { trace_id: string } })[] }; next: string | null }[] = [];
    do {
      const before = pages.at(-1)?.next;
      const res = await t.workbench('exportHar', before ? { ...request, before } : request);
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      await expect(validator.har(res.body)).resolves.toBeTruthy();
      pages.push(res.body);
    } while (pages.at(-1)!.next !== null);
    return pages;
  };
  const traces = (pages: Awaited<ReturnType<typeof pagesOf>>) => pages.toReversed().flatMap((page) => page.log.entries.map((entry) => entry._tokenbench.trace_id));

  const all = await pagesOf({});
  expect(all.length).toBeGreaterThan(1);
  expect(traces(all)).toEqual(sent);
  const ids = (await t.engine.history.list(80)).map((entry) => entry.id);
  const chosen = await pagesOf({ ids: [...ids, ids[0]] });
  expect(chosen.length).toBeGreaterThan(1);
  expect(traces(chosen)).toEqual(sent);
  // A page to go on from that the export never gave (or one trimmed since) is the end.
  expect((await t.workbench('exportHar', { before: 'no-such-entry' })).body).toMatchObject({ log: { entries: [] }, next: null });
});
