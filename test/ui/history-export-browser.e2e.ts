import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { historyPage } from './support/history-page';
import { openWorkbench } from './support/workbench-page';

/** History saved as HAR from the page, as a user downloads it. */
const validator = createRequire(__filename)('har-validator') as { har(data: unknown): Promise<unknown> };
const PAN = '4000056655665556';
let bench: TestEngine;

test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});
test.afterEach(() => bench.stop());

test('the filtered requests download as a HAR the schema accepts, with no plaintext', async ({ page }) => {
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN }, headers: { 'BT-TRACE-ID': 'har-1' } });
  const proxy = { 'BT-PROXY-URL': bench.engine.echoUrl! };
  await bench.call('POST', '/proxy/charges', { key: bench.privateKey, body: { pan: `{{ ${card.body.id} }}` }, headers: { ...proxy, 'BT-TRACE-ID': 'har-2' } });
  await bench.call('POST', '/proxy/refunds', { key: bench.privateKey, body: { pan: `{{ ${card.body.id} }}` }, headers: { ...proxy, 'BT-TRACE-ID': 'har-3' } });
  await bench.call('GET', '/tokens', { key: bench.privateKey, headers: { 'BT-TRACE-ID': 'not-this-one' } });

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const h = historyPage(page);
  await h.search.fill('har-');
  await expect(h.rows).toHaveCount(3);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the matching requests as HAR' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^tokenbench-history-.*\.har$/);
  const text = readFileSync((await download.path())!, 'utf8');
  const har = JSON.parse(text) as { log: { entries: { request: { url: string } }[] } };
  await expect(validator.har(har)).resolves.toBeTruthy();
  expect(har.log.entries.map((entry) => new URL(entry.request.url).pathname)).toEqual(['/tokens', '/proxy/charges', '/proxy/refunds']);
  expect(text).not.toContain(PAN);
  expect(text).not.toContain(bench.privateKey);
});

test('a history larger than one page of the engine downloads whole, oldest first, as one document', async ({ page }) => {
  const filler = 'x'.repeat(16 * 1024);
  const sent = Array.from({ length: 120 }, (_, i) => `page-${String(i).padStart(3, '0')}`);
  for (const trace of sent) {
    await bench.call('POST', '/proxy/orders', { key: bench.privateKey, body: { trace, filler }, headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'BT-TRACE-ID': trace } });
  }
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const asked: string[] = [];
  page.on('request', (request) => request.url().endsWith('/_workbench/exportHar') && asked.push(request.postData() ?? ''));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export as HAR' }).click()]);
  const text = readFileSync((await download.path())!, 'utf8');
  const har = JSON.parse(text) as { log: { entries: { _tokenbench: { trace_id: string } }[] } };
  await expect(validator.har(har)).resolves.toBeTruthy();
  expect(har.log.entries.map((entry) => entry._tokenbench.trace_id)).toEqual(sent);
  // Laid out as the page always wrote the file; made from several of the engine's pages.
  expect(text).toBe(JSON.stringify(har, null, 2));
  expect(asked.length).toBeGreaterThan(1);
  await expect(page.getByRole('button', { name: 'Export as HAR' })).toBeEnabled();
});
