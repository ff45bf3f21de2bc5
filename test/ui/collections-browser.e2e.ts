import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { UI_DIR } from './support/paths';
import { openWorkbench } from './support/workbench-page';

/** Saved requests beside the Composer, as files a test (or a teammate, or git) can change under the app. */
let bench: TestEngine;
test.beforeEach(async () => {
  bench = await startTestEngine({ echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});
test.afterEach(() => bench.stop());

test('a request saved as a file, changed on disk, seen changed in the app, renamed and deleted', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  const saved = page.getByRole('region', { name: 'Saved requests' });
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body('{"amount": 10}');
  await saved.getByRole('button', { name: 'Save…' }).click();
  const form = saved.getByRole('form', { name: 'Save the request' });
  await form.getByRole('combobox', { name: 'Collection' }).fill('Payments');
  await form.getByRole('textbox', { name: 'Name' }).fill('Charge');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(saved.getByRole('button', { name: 'POST Charge' })).toBeVisible();

  const file = join(bench.engine.collectionsFolder, 'Payments', 'Charge.request.json');
  const onDisk = JSON.parse(readFileSync(file, 'utf8'));
  expect(onDisk).toMatchObject({ version: 2, kind: 'proxy', method: 'POST', target: `${bench.engine.echoUrl}/v1/charges`, body: ['{"amount": 10}'] });

  // A teammate's change arrives through git: the app shows it without a reload, marked as changed from the draft.
  writeFileSync(file, JSON.stringify({ ...onDisk, method: 'PUT', body: ['{"amount": 20}'] }, null, 2));
  await expect(saved.getByRole('button', { name: /^PUT Charge/ })).toBeVisible();
  await expect(saved.getByLabel('changed since saved')).toBeVisible();
  await saved.getByRole('button', { name: /^PUT Charge/ }).click();
  await expect(c.request.getByRole('combobox', { name: 'Method' })).toHaveValue('PUT');
  await expect(c.request.getByRole('textbox', { name: 'Request body' })).toHaveText('{"amount": 20}');
  await expect(saved.getByLabel('changed since saved')).toHaveCount(0);

  await saved.getByRole('button', { name: 'Rename or move Charge' }).click();
  await saved.getByRole('textbox', { name: 'Collection/name' }).fill('Refunds/Refund');
  await saved.getByRole('button', { name: 'Move' }).click();
  await expect(saved.getByText('Refunds', { exact: true })).toBeVisible();
  await expect(saved.getByText('Payments', { exact: true })).toHaveCount(0);
  await saved.getByRole('button', { name: 'Delete Refund' }).click();
  await saved.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(saved).toContainText('None yet');
});

test('a file in the folder that is not a saved request says what is wrong with it, and can be deleted', async ({ page }) => {
  mkdirSync(join(bench.engine.collectionsFolder, 'Payments'), { recursive: true });
  writeFileSync(join(bench.engine.collectionsFolder, 'Payments', 'Broken.request.json'), JSON.stringify({ kind: 'soap', method: 'POST' }));
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const saved = page.getByRole('region', { name: 'Saved requests' });
  await expect(saved.getByText(/^Not a saved request: kind: .*"proxy".*\. Fix its file in the folder below, or delete it\.$/)).toBeVisible();
  await expect(saved.getByRole('button', { name: 'Broken', exact: true })).toBeDisabled();
  await saved.getByRole('button', { name: 'Delete Broken' }).click();
  await saved.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(saved).toContainText('None yet');
});

test('several requests open in tabs, kept across a reload, closed with a question when unsaved', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  const tabs = page.getByRole('tablist', { name: 'Open requests' });
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body('{"amount": 10}');
  await page.getByRole('button', { name: 'New request', exact: true }).click();
  await expect(tabs.getByRole('tab')).toHaveCount(2);
  await expect(tabs.getByRole('tab', { selected: true })).toContainText('New request');
  await c.kind('Vault API');
  await c.method('GET');
  await c.path('/tokens');

  // A restart (here, a reload) brings back every open request, the one on show too.
  await page.reload();
  await expect(tabs.getByRole('tab')).toHaveCount(2);
  await expect(tabs.getByRole('tab', { selected: true })).toContainText('GET /tokens');
  await expect(c.request.getByRole('textbox', { name: 'Path' })).toHaveValue('/tokens');
  await tabs.getByRole('tab', { name: /charges/ }).click();
  await expect(c.request.getByRole('textbox', { name: 'Destination URL' })).toHaveValue(`${bench.engine.echoUrl}/v1/charges`);
  await expect(c.request.getByRole('textbox', { name: 'Request body' })).toHaveText('{"amount": 10}');
  await expect(tabs.getByRole('tab', { name: /charges/ }).getByLabel('unsaved changes')).toBeVisible();

  // Saved, the tab takes the request's name and loses its mark; opening it again shows that tab rather than a new one.
  const saved = page.getByRole('region', { name: 'Saved requests' });
  await saved.getByRole('button', { name: 'Save…' }).click();
  await saved.getByRole('combobox', { name: 'Collection' }).fill('Payments');
  await saved.getByRole('textbox', { name: 'Name' }).fill('Charge');
  await saved.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(tabs.getByRole('tab', { selected: true })).toHaveText(/Charge$/);
  await tabs.getByRole('tab', { name: /GET/ }).click();
  await saved.getByRole('button', { name: 'POST Charge' }).click();
  await expect(tabs.getByRole('tab')).toHaveCount(2);
  await expect(tabs.getByRole('tab', { selected: true })).toHaveText(/Charge$/);

  // The keyboard moves between tabs; Delete closes one, asking first when no file holds its changes.
  await tabs.getByRole('tab', { selected: true }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(tabs.getByRole('tab', { selected: true })).toContainText('GET /tokens');
  await expect(tabs.getByRole('tab', { selected: true })).toBeFocused();
  await page.keyboard.press('Delete');
  const question = page.getByRole('alertdialog', { name: 'Close /tokens?' });
  await expect(question).toBeVisible();
  await question.getByRole('button', { name: 'Close without saving' }).click();
  await expect(tabs.getByRole('tab')).toHaveCount(1);
  await expect(tabs.getByRole('tab', { selected: true })).toHaveText(/Charge$/);
  await expect(tabs.getByRole('tab', { selected: true })).toBeFocused();
});

test('the saved requests start folded in a window too narrow for three columns; Ctrl+\\ and the buttons fold them, kept across a reload', async ({ page }) => {
  const saved = page.getByRole('region', { name: 'Saved requests' });
  await page.setViewportSize({ width: 1280, height: 760 });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await expect(saved.getByRole('button', { name: 'Saved requests ›' })).toHaveAttribute('aria-expanded', 'false');
  await expect(saved.getByText('None yet')).toBeHidden();

  await page.keyboard.press('Control+Backslash');
  await expect(saved.getByText('None yet')).toBeVisible();
  await page.reload();
  await expect(saved.getByText('None yet')).toBeVisible();
  await saved.getByRole('button', { name: '‹ Hide' }).click();
  await expect(saved.getByText('None yet')).toBeHidden();
  await expect(saved.getByRole('button', { name: 'Saved requests ›' })).toBeFocused();
  await page.reload();
  await expect(saved.getByText('None yet')).toBeHidden();
  await saved.getByRole('button', { name: 'Saved requests ›' }).focus();
  await page.keyboard.press('Enter');
  await expect(saved.getByText('None yet')).toBeVisible();
  await expect(saved.getByRole('button', { name: '‹ Hide' })).toBeFocused();
});

test('in a wide window the saved requests are shown from the start', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await expect(page.getByRole('region', { name: 'Saved requests' }).getByText('None yet')).toBeVisible();
});
