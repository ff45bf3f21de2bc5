import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { tempDir, type TestEngine } from '../support/test-engine';
import { goToProxies, proxiesPage } from './support/proxies-page';
import { goToSettings, settingsSection } from './support/settings-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * The proxies folder in Settings, in Chromium against a real engine: chosen by path, its files listed with their
 * state (a broken one with why), a proxy made through the API exported into it, and a hosted proxy's JSON imported.
 */
let bench: TestEngine;
const workbench = workbenchTests();
const API_KEY = 'sk_test_proxy_files_browser_0001';

test('the proxies folder: files with their state and errors, export and import', async ({ page }) => {
  const folder = tempDir('tokenbench-proxies-ui-');
  writeFileSync(join(folder, 'echo.json'), JSON.stringify({ name: 'Echo', destination_url: 'https://example.com/echo' }));
  writeFileSync(join(folder, 'broken.json'), JSON.stringify({ name: 'Broken', destination_url: 'https://example.com', request_transforms: [{ code_file: 'missing.js' }] }));
  writeFileSync(join(folder, 'card.reactor.js'), 'module.exports = async (req) => ({ raw: req.args });\n');
  writeFileSync(join(folder, 'card.reactor.json'), JSON.stringify({ name: 'Card reactor', code_file: 'card.reactor.js' }));
  bench = await workbench.start();
  await bench.call('POST', '/proxies', { key: bench.managementKey, body: { name: 'Made in the API', destination_url: 'https://example.com/api', configuration: { API_KEY } } });

  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToSettings(page);
  const section = settingsSection(page, 'Proxies folder');
  const form = section.getByRole('form', { name: 'Proxies folder' });
  await form.getByRole('textbox', { name: 'Proxies folder path' }).fill(folder);
  await form.getByRole('button', { name: 'Load proxies from this folder' }).click();
  await expect(section.getByRole('status')).toContainText(`Proxies are loaded from ${folder} now.`);

  const files = section.getByRole('table', { name: 'Proxy and reactor files' });
  await expect(files.getByRole('row', { name: /echo\.json/ })).toContainText('Loaded');
  await expect(files.getByRole('row', { name: /card\.reactor\.json/ })).toContainText(/Reactor\s*Card reactor\s*Loaded/);
  const broken = files.getByRole('row', { name: /broken\.json/ });
  await expect(broken).toContainText('Broken: serves nothing');
  await expect(broken).toContainText('request_transforms[0].code_file: missing.js does not exist');

  // A file fixed on disk shows as loaded without a click: the section reads the folder's state while open.
  writeFileSync(join(folder, 'missing.js'), 'module.exports = async (req) => req.args;\n');
  await expect(files.getByRole('row', { name: /broken\.json/ })).toContainText('Loaded', { timeout: 10_000 });

  const exporting = section.getByRole('form', { name: 'Export a proxy to the folder' });
  await exporting.getByRole('combobox', { name: 'Proxy to export' }).selectOption({ label: 'Made in the API' });
  await exporting.getByRole('button', { name: 'Export to the folder' }).click();
  await expect(section.getByRole('status')).toContainText('Exported to made-in-the-api.json');
  await expect(section.getByRole('status')).toContainText('Moved into Secrets');
  await expect(files.getByRole('row', { name: /made-in-the-api\.json/ })).toContainText('Made in the API');
  await expect(page.locator('body')).not.toContainText(API_KEY);

  const importing = section.getByRole('form', { name: "Import a proxy's JSON" });
  await importing.getByRole('textbox').fill(JSON.stringify({ id: '7d1f0c52-4d0e-4c39-a7e5-3a1b2c3d4e5f', key: 'abcdefghijklmnopqrstuvwxyz012345', name: 'Hosted', destination_url: 'https://example.com/hosted', state: 'active' }));
  await importing.getByRole('button', { name: 'Import into the folder' }).click();
  await expect(section.getByRole('status')).toContainText('Imported to hosted.json, with its id and key.');
  expect(readdirSync(folder).sort()).toEqual(['broken.json', 'card.reactor.js', 'card.reactor.json', 'echo.json', 'hosted.json', 'made-in-the-api.json', 'missing.js']);
  rmSync(folder, { recursive: true, force: true });
});

test("a file proxy on the Proxies page: marked as the folder's, shown read-only with where to edit it and its file's problem", async ({ page }) => {
  const folder = tempDir('tokenbench-proxies-page-');
  mkdirSync(join(folder, 'payments'));
  writeFileSync(join(folder, 'payments', 'charge.request.js'), 'module.exports = async (req) => req.args;\n');
  writeFileSync(join(folder, 'payments', 'charge.json'), JSON.stringify({ name: 'Charge', destination_url: 'https://example.com/charge', request_transforms: [{ type: 'code', code_file: 'charge.request.js' }] }));
  bench = await workbench.start({ proxiesDir: folder });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToProxies(page);
  const proxies = proxiesPage(page);

  await expect(proxies.list.getByRole('row', { name: /Charge/ })).toContainText('file payments/charge.json');
  await proxies.open('Charge');
  await expect(proxies.editor).toContainText('Loaded from payments/charge.json in the proxies folder: edit the file to change it');
  await expect(proxies.editor.getByRole('textbox', { name: 'Name', exact: true })).not.toBeEditable();
  await expect(proxies.editor.getByRole('textbox', { name: 'Destination URL' })).not.toBeEditable();
  await expect(proxies.code('request transform 1')).toContainText('module.exports');
  await expect(proxies.code('request transform 1')).not.toBeEditable();
  await expect(proxies.editor.getByRole('button', { name: /Save proxy/ })).toHaveCount(0);
  await expect(proxies.editor.getByRole('button', { name: /Delete proxy/ })).toHaveCount(0);

  // Broken on disk: the page says why on its next visit, and that the last good version still serves.
  writeFileSync(join(folder, 'payments', 'charge.json'), '{ "name": "Charge", ');
  await expect.poll(async () => (await bench.engine.workbench.listProxyFiles({})).files[0]?.state, { timeout: 10_000 }).toBe('error');
  await page.keyboard.press('Control+1');
  await goToProxies(page);
  await proxies.open('Charge');
  await expect(proxies.editor).toContainText('The file has a problem; the last good version is serving: not valid JSON');
  rmSync(folder, { recursive: true, force: true });
});
