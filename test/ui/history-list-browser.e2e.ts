import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { historyPage } from './support/history-page';
import { openWorkbench } from './support/workbench-page';

/** The history list against a real engine in Chromium: paging back past the first page, and the filters. */
let bench: TestEngine;

test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});

test.afterEach(async () => {
  await bench.stop();
});

const read = (n: number) => bench.call('GET', `/tokens/missing-${n}`, { key: bench.privateKey, headers: { 'BT-TRACE-ID': `read-${n}` } });

test('pages back through requests older than the first page, and says when there are no more', async ({ page }) => {
  for (let n = 1; n <= 130; n++) expect((await read(n)).status).toBe(404);
  await bench.engine.history.flush();

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const h = historyPage(page);
  const rows = h.rows;
  await expect(rows).toHaveCount(100);
  await expect(rows.first()).toHaveAttribute('data-trace', 'read-130');

  await h.loadOlder.click();
  await expect(rows).toHaveCount(130);
  await expect(rows.last()).toHaveAttribute('data-trace', 'read-1');
  // That page came back short: nothing older is left to load.
  await expect(h.loadOlder).toHaveCount(0);

  // Live requests still arrive at the top.
  expect((await read(131)).status).toBe(404);
  await expect(rows).toHaveCount(131);
  await expect(rows.first()).toHaveAttribute('data-trace', 'read-131');
});

test('filters the list by what failed and who failed it, and by text', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: '4242424242424242' } });
  const send = (path: string, body: unknown, trace: string) =>
    bench.call('POST', path, { key: bench.privateKey, body, headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'BT-TRACE-ID': trace } });
  expect((await send('/proxy', { pan: `{{ ${card.body.id} }}` }, 'proxied-ok')).status).toBe(200);
  expect((await send('/proxy/status/503', {}, 'destination-503')).status).toBe(503);
  expect((await send('/proxy', { pan: '{{ nope }}' }, 'proxy-400')).status).toBe(400);
  expect((await read(1)).status).toBe(404);

  const h = historyPage(page);
  const rows = h.rows;
  await expect(rows).toHaveCount(5);
  const { traces, show, search } = h;

  await show('proxy-errors');
  await expect(rows).toHaveCount(1);
  expect(await traces()).toEqual(['proxy-400']);
  await show('destination-errors');
  // As many rows as the view before: the count alone cannot tell the new list has arrived.
  await expect.poll(traces).toEqual(['destination-503']);
  await show('failed');
  await expect(rows).toHaveCount(3);
  expect(await traces()).toEqual(['read-1', 'proxy-400', 'destination-503']);
  // The filter is in the address: a reload keeps it, and live requests are held to it.
  expect(new URL(page.url()).hash).toBe('#/history?view=failed');
  await page.reload();
  await expect(rows).toHaveCount(3);
  await expect(h.requests.getByRole('combobox', { name: 'Show' })).toHaveValue('failed');
  expect((await read(2)).status).toBe(404);
  expect((await bench.call('GET', '/tokens', { key: bench.privateKey, headers: { 'BT-TRACE-ID': 'fine' } })).status).toBe(200);
  await expect(rows).toHaveCount(4);
  expect(await traces()).toEqual(['read-2', 'read-1', 'proxy-400', 'destination-503']);
  await show('proxy');
  await expect(rows).toHaveCount(3);

  await show('all');
  await search.fill('STATUS/503');
  await expect(rows).toHaveCount(1);
  await search.fill('no such request');
  await expect(h.noMatch).toBeVisible();
  await search.fill('');
  await expect(rows).toHaveCount(7);
});

test('filters run in the engine over everything it keeps, not only the requests the page has listed', async ({ page }) => {
  expect((await bench.call('GET', '/tokens/needle', { key: bench.privateKey, headers: { 'BT-TRACE-ID': 'the-old-one' } })).status).toBe(404);
  for (let n = 1; n <= 600; n++) expect((await read(n)).status).toBe(404);
  await bench.engine.history.flush();
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const h = historyPage(page);
  const rows = h.rows;
  await expect(rows).toHaveCount(100);
  await page.getByRole('button', { name: 'More filters' }).click();
  await page.getByRole('searchbox', { name: 'Token id' }).fill('needle');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-trace', 'the-old-one');
  expect(new URL(page.url()).hash).toBe('#/history?token_id=needle');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(rows).toHaveCount(100);
});

test('the keyboard moves through the list, searches, and replays a request in the Composer', async ({ page }) => {
  for (let n = 1; n <= 3; n++) expect((await read(n)).status).toBe(404);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const h = historyPage(page);
  const rows = h.rows;
  await expect(rows).toHaveCount(3);
  await page.keyboard.press('j');
  await expect(rows.nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('j');
  await page.keyboard.press('ArrowDown');
  await expect(rows.nth(2)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('k');
  await expect(rows.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(h.entry).toContainText('/tokens/missing-2');
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Search the requests' })).toBeFocused();
  await page.keyboard.press('Escape');
  await page.getByRole('heading', { name: /missing-2/ }).focus();
  await page.keyboard.press('Control+r');
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  await expect(page.getByRole('radio', { name: 'Vault API' })).toBeChecked();
  await expect(page.getByRole('textbox', { name: 'Path' })).toHaveValue('/tokens/missing-2');
  await expect(page.getByRole('region', { name: 'Request', exact: true }).getByRole('status')).toContainText('Replayed GET /tokens/missing-2 from History');
});
