import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { rawRequest } from '../support/raw-request';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { UI_DIR } from './support/paths';
import { historyPage } from './support/history-page';
import { openWorkbench } from './support/workbench-page';

/** Requests from History sent again from the Composer, in Chromium against the real engine. */
const PAN = '4242424242424242';
let bench: TestEngine;

test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});
test.afterEach(() => bench.stop());
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test("an outside client's proxied request, replayed with one header changed", async ({ page }) => {
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  const sent = await bench.call('POST', '/proxy/v1/charges?currency=eur', {
    key: bench.privateKey,
    body: { pan: `{{ ${card.body.id} }}` },
    headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'X-Merchant': 'shop-a', 'BT-TRACE-ID': 'from-the-back-end' },
  });
  expect(sent.status).toBe(200);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await historyPage(page).openTrace('from-the-back-end');
  await page.getByRole('button', { name: /Replay in Composer/ }).click();

  const c = composer(page);
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  await expect(c.request.getByRole('textbox', { name: 'Destination URL' })).toHaveValue(`${bench.engine.echoUrl}/v1/charges?currency=eur`);
  await expect(c.request.getByRole('textbox', { name: 'Request body' })).toContainText(`{{ ${card.body.id} }}`);
  // The key is the application's, never carried over; the sending application is picked again.
  await expect(c.request.getByRole('combobox', { name: 'Send as' })).toHaveValue(bench.engine.bootstrapKeys!.private.application_id);
  await c.request.getByRole('tab', { name: /Headers/ }).click();
  // Only the client's own header comes back as a row: the body type, the service's headers and the key have their places.
  await expect(c.request.getByRole('textbox', { name: /^Name of headers/ })).toHaveCount(1);
  await c.request.getByRole('textbox', { name: 'Value of headers X-Merchant' }).fill('shop-b');
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
  const echoed = JSON.parse(await c.rawBody());
  expect(echoed.headers['x-merchant']).toBe('shop-b');
  // Detokenized again on the way out: the replay's answer masks what the echo repeats of it, until revealed.
  expect(JSON.parse(echoed.body)).toEqual({ pan: 'XXXXXXXXXXXX4242' });
  await c.response.getByRole('button', { name: 'Reveal values' }).click();
  await expect.poll(async () => JSON.parse(JSON.parse(await c.rawBody()).body)).toEqual({ pan: PAN });
});

test('a request whose body History cut is replayed only after the user confirms, and says so', async ({ page }) => {
  const big = JSON.stringify({ filler: 'x'.repeat(20 * 1024) });
  const sent = await bench.call('POST', '/proxy', { key: bench.privateKey, raw: big, headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'content-type': 'application/json', 'BT-TRACE-ID': 'big-one' } });
  expect(sent.status).toBe(200);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await historyPage(page).openTrace('big-one');
  await page.getByRole('button', { name: /Replay in Composer/ }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('History kept only the first 16 KiB of this body');
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);

  await page.getByRole('button', { name: /Replay in Composer/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Replay the kept part' }).click();
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  await expect(composer(page).request.getByRole('status')).toContainText('History kept only the first 16 KiB of its body');
});

test("an outside client's request copied as cURL from History, run with the key in the environment, answers the same", async ({ page }) => {
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  const sent = await bench.call('POST', '/proxy/v1/charges?currency=eur', {
    key: bench.privateKey,
    body: { pan: `{{ ${card.body.id} }}` },
    headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'X-Merchant': 'shop-a', 'BT-TRACE-ID': 'to-copy' },
  });
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await historyPage(page).openTrace('to-copy');
  await page.getByRole('button', { name: 'Copy as cURL' }).click();
  await expect(historyPage(page).entry.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  const command = await page.evaluate(() => navigator.clipboard.readText());
  expect(command).toContain('"BT-API-KEY: $BT_API_KEY"');
  expect(command).not.toContain(bench.privateKey.slice(-4) + "'");
  expect(command).not.toContain(PAN);
  const { stdout } = await promisify(execFile)('sh', ['-c', `${command.trimEnd()} --silent`], { env: { ...process.env, BT_API_KEY: bench.privateKey } });
  const [ran, original] = [JSON.parse(stdout), JSON.parse(sent.text)];
  expect([ran.method, ran.path, ran.query, ran.body, ran.headers['x-merchant']]).toEqual([original.method, original.path, original.query, original.body, original.headers['x-merchant']]);
  expect(ran.body).toContain(PAN);
});

test('a request whose target was not a plain path replays as a path of the engine, not to the host it named', async ({ page }) => {
  await rawRequest(bench.engine.port, `GET ftp://evil.example/y?z=1 HTTP/1.1\r\nHost: 127.0.0.1:${bench.engine.port}\r\nBT-TRACE-ID: odd-target\r\n\r\n`);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await historyPage(page).openTrace('odd-target');
  await page.getByRole('button', { name: /Replay in Composer/ }).click();
  const c = composer(page);
  await expect(c.request.getByRole('textbox', { name: 'Path' })).toHaveValue('/ftp://evil.example/y?z=1');
  await c.send();
  await expect(c.outcome).toContainText('404');
  await bench.engine.history.flush();
  const [replayed] = await bench.engine.history.list(1);
  expect(replayed).toMatchObject({ path: '/ftp://evil.example/y?z=1', status: 404, workbench_page: 'composer' });
});
