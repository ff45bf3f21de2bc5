import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
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
  const rows = page.getByTestId('history-row');
  await expect(rows).toHaveCount(100);
  await expect(rows.first()).toHaveAttribute('data-trace', 'read-130');

  await page.getByTestId('history-load-older').click();
  await expect(rows).toHaveCount(130);
  await expect(rows.last()).toHaveAttribute('data-trace', 'read-1');
  // That page came back short: nothing older is left to load.
  await expect(page.getByTestId('history-load-older')).toHaveCount(0);

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

  const rows = page.getByTestId('history-row');
  await expect(rows).toHaveCount(5);
  const traces = async () => rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-trace')));
  const show = (view: string) => page.getByTestId('history-view').selectOption(view);

  await show('proxy-errors');
  await expect(rows).toHaveCount(1);
  expect(await traces()).toEqual(['proxy-400']);
  await show('destination-errors');
  await expect(rows).toHaveCount(1);
  expect(await traces()).toEqual(['destination-503']);
  await show('failed');
  await expect(rows).toHaveCount(3);
  expect(await traces()).toEqual(['read-1', 'proxy-400', 'destination-503']);
  await expect(page.getByTestId('history-count')).toHaveText('3 of 5 listed');
  await show('proxy');
  await expect(rows).toHaveCount(3);

  await show('all');
  await page.getByTestId('history-search').fill('STATUS/503');
  await expect(rows).toHaveCount(1);
  await page.getByTestId('history-search').fill('no such request');
  await expect(page.getByTestId('history-no-match')).toBeVisible();
  await page.getByTestId('history-search').fill('');
  await expect(rows).toHaveCount(5);
});
