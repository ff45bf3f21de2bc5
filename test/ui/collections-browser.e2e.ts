import { readFileSync, writeFileSync } from 'node:fs';
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
  expect(onDisk).toMatchObject({ kind: 'proxy', method: 'POST', target: `${bench.engine.echoUrl}/v1/charges`, body: '{"amount": 10}' });

  // A teammate's change arrives through git: the app shows it without a reload, marked as changed from the draft.
  writeFileSync(file, JSON.stringify({ ...onDisk, method: 'PUT', body: '{"amount": 20}' }, null, 2));
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
