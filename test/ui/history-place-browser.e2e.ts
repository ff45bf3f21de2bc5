import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { historyPage } from './support/history-page';
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
  const { rows, search } = historyPage(page);
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
    const h = historyPage(page);
    const rows = h.rows;
    await expect(rows).toHaveCount(60);
    const far = rows.filter({ hasText: '/tokens/read-10' });
    await far.getByRole('button', { name: '/tokens/read-10' }).click();
    // Beside the list the chosen row stays in view; in a window that stacks the panels the detail below it comes up.
    const shown = size.width >= 1440 ? far : h.entry;
    await expect(shown).toBeInViewport();
    await expect(rows.first()).not.toBeInViewport();

    await openPage(page, 'Settings');
    await openPage(page, 'History');
    await expect(far).toHaveAttribute('aria-selected', 'true');
    await expect(shown).toBeInViewport();
    await expect(rows.first()).not.toBeInViewport();
  });
}

test('filters by sender: outside clients, this workbench, or one application; the active filters say so', async ({ page }) => {
  bench = await workbench.start();
  const checkout = await bench.call('POST', '/applications', {
    key: bench.managementKey,
    body: { name: 'Checkout', type: 'private', permissions: ['token:read'] },
    headers: { 'BT-TRACE-ID': 'create-checkout' },
  });
  await bench.call('GET', '/tokens', { key: checkout.body.key, headers: { 'BT-TRACE-ID': 'outside-checkout' } });
  await read('outside-private');
  const backend = bench.engine.bootstrapKeys!.private.application_id;
  await bench.engine.workbench.sendRequest({ id: 'w', application_id: backend, method: 'GET', path: '/tokens', headers: [['BT-TRACE-ID', 'from-workbench']], body: null }, 'composer');

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const h = historyPage(page);
  const { rows, traces } = h;
  // With the workbench key the Composer's request made first, as a change of the workbench's own.
  await expect(rows).toHaveCount(5);
  await page.getByRole('button', { name: 'More filters' }).click();
  const sentBy = page.getByRole('combobox', { name: 'Sent by' });
  const active = page.getByRole('status', { name: 'Active filters' });

  await sentBy.selectOption({ label: 'Outside clients' });
  await expect.poll(traces).toEqual(['outside-private', 'outside-checkout', 'create-checkout']);
  await expect(active).toHaveText('Showing requests sent by outside clients');
  expect(new URL(page.url()).hash).toBe('#/history?sender=outside');

  await sentBy.selectOption({ label: 'This workbench' });
  await expect.poll(traces).toEqual(['from-workbench', expect.any(String)]);
  await expect(rows.nth(1)).toContainText('/keys/');
  await expect(active).toHaveText('Showing requests sent by this workbench');

  await sentBy.selectOption({ label: 'Checkout · private' });
  await expect.poll(traces).toEqual(['outside-checkout']);
  await h.search.fill('outside');
  await expect(active).toHaveText('Showing requests sent as Checkout, matching “outside”');
  // Live requests are held to it too.
  await read('outside-private-2');
  await bench.call('GET', '/tokens', { key: checkout.body.key, headers: { 'BT-TRACE-ID': 'outside-checkout-2' } });
  await expect.poll(traces).toEqual(['outside-checkout-2', 'outside-checkout']);
});
