import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { openPage, openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** History keeps its place while the user is on another page: the filter, the request open, where the list was. */
let bench: TestEngine;
const workbench = workbenchTests();

const read = (trace: string) => bench.call('GET', `/tokens/${trace}`, { key: bench.privateKey, headers: { 'BT-TRACE-ID': trace } });

async function exportedTraces(page: Page, button: string): Promise<string[]> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
  const har = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { log: { entries: { _tokenbench: { trace_id: string } }[] } };
  return har.log.entries.map((entry) => entry._tokenbench.trace_id);
}

test('the filter and the open request survive a page switch, and an export right after uses the filter on screen', async ({ page }) => {
  bench = await workbench.start();
  for (let n = 1; n <= 20; n++) await read(`other-${n}`);
  await read('needle-1');
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const rows = page.getByTestId('history-row');
  const search = page.getByRole('searchbox', { name: 'Search the requests' });
  await expect(rows).toHaveCount(21);
  await search.fill('needle');
  await expect(rows).toHaveCount(1);
  await rows.first().getByRole('button', { name: '/tokens/needle-1' }).click();
  await expect(page.getByRole('heading', { name: 'GET /tokens/needle-1' })).toBeVisible();

  await openPage(page, 'Composer');
  await openPage(page, 'History');
  // At once: the same filter, the same list, the same request open.
  await expect(search).toHaveValue('needle');
  await expect(rows).toHaveCount(1);
  await expect(page.getByRole('heading', { name: 'GET /tokens/needle-1' })).toBeVisible();
  expect(new URL(page.url()).hash).toBe('#/history?text=needle');

  // Requests that arrive live after the page came back: once they are heard, the page has heard from the engine.
  await read('other-21');
  await read('needle-2');
  await expect(rows.first()).toHaveAttribute('data-trace', 'needle-2');
  await expect(rows).toHaveCount(2);
  expect(await exportedTraces(page, 'Export the matching requests as HAR')).toEqual(['needle-1', 'needle-2']);
});

for (const size of [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
]) {
  test(`the list comes back scrolled where it was (${size.width}x${size.height})`, async ({ page }) => {
    await page.setViewportSize(size);
    bench = await workbench.start();
    for (let n = 1; n <= 60; n++) await read(`read-${String(n).padStart(2, '0')}`);
    await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
    const rows = page.getByTestId('history-row');
    await expect(rows).toHaveCount(60);
    const far = rows.filter({ hasText: '/tokens/read-10' });
    await far.getByRole('button', { name: '/tokens/read-10' }).click();
    await expect(far).toBeInViewport();
    await expect(rows.first()).not.toBeInViewport();

    await openPage(page, 'Settings');
    await openPage(page, 'History');
    await expect(far).toHaveAttribute('aria-selected', 'true');
    await expect(far).toBeInViewport();
    await expect(rows.first()).not.toBeInViewport();
  });
}
