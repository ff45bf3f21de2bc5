import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { historyPage } from './support/history-page';
import { goToSettings, settingsSection } from './support/settings-page';
import { openPage, openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** The Settings page in Chromium against a real engine: what otherwise takes a management key and curl. */
const PAN = '4242424242424242';
let bench: TestEngine;
const workbench = workbenchTests();

async function openSettings(page: Page, options: Parameters<typeof workbench.start>[0] = {}) {
  bench = await workbench.start(options);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToSettings(page);
}

test('a new management application is offered the proxy permissions the engine lists', async ({ page }) => {
  await openSettings(page);
  const applications = settingsSection(page, 'Applications');
  const form = applications.getByRole('form', { name: 'New application' });
  await form.getByRole('textbox', { name: 'Name of the new application' }).fill('Deployer');
  await form.getByRole('combobox', { name: 'Type of the new application' }).selectOption('management');
  for (const [permission, meaning] of [['proxy:create', 'Create Proxies'], ['proxy:read', 'Read Proxies'], ['proxy:update', 'Update Proxies'], ['proxy:delete', 'Delete Proxies']]) {
    await expect(form.getByRole('checkbox', { name: `${permission} ${meaning}` })).toBeVisible();
  }
  await expect(form.getByRole('checkbox', { name: 'proxy:invoke Invoke Proxies' })).toHaveCount(0);
  await form.getByRole('button', { name: 'Create application' }).click();
  const editor = applications.getByRole('region', { name: 'Deployer · management' });
  await expect(editor.getByRole('checkbox', { name: 'proxy:read Read Proxies' })).toBeVisible();
});

test('create an application with a masking rule, make a key, use it from an outside client, revoke it', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openSettings(page);
  const applications = settingsSection(page, 'Applications');
  await expect(applications.getByRole('table', { name: 'Applications' }).getByRole('row')).toHaveCount(3);

  const form = applications.getByRole('form', { name: 'New application' });
  await form.getByRole('textbox', { name: 'Name of the new application' }).fill('Checkout');
  await form.getByRole('combobox', { name: 'Type of the new application' }).selectOption('private');
  await form.getByRole('checkbox', { name: 'token:read Read Tokens' }).uncheck();
  await form.getByRole('checkbox', { name: 'token:use Use Tokens in the Proxy' }).uncheck();
  await form.getByRole('button', { name: 'Create application' }).click();
  const editor = applications.getByRole('region', { name: 'Checkout · private' });
  await expect(editor).toBeVisible();
  await expect(editor.getByText('No keys: no client can call as this application.')).toBeVisible();

  // Permissions are checkboxes with their meaning, as the new application got them; a rule masks cards in /pci/.
  await expect(editor.getByRole('checkbox', { name: 'token:use Use Tokens in the Proxy' })).not.toBeChecked();
  await expect(editor.getByRole('checkbox', { name: 'proxy:invoke Invoke Proxies' })).toBeVisible();
  await expect(editor.getByRole('checkbox', { name: 'token:create Create Tokens' })).toBeChecked();
  await editor.getByRole('button', { name: 'Add rule' }).click();
  const rules = editor.getByRole('list', { name: 'Access rules' });
  await expect(rules.getByRole('group', { name: 'Permissions of rule 1' }).getByRole('checkbox', { name: 'reactor:invoke' })).toBeVisible();
  await rules.getByRole('textbox', { name: 'Container of rule 1' }).fill('/pci/');
  await rules.getByRole('combobox', { name: 'Transform of rule 1' }).selectOption('mask');
  await rules.getByRole('textbox', { name: 'Description of rule 1' }).fill('cards, masked');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await expect(editor.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();

  await editor.getByRole('button', { name: 'Create key' }).click();
  const secret = editor.getByRole('group', { name: 'New key of Checkout' });
  const key = (await secret.locator('code').innerText()).trim();
  expect(key).toMatch(/^key_local_/);
  await secret.getByRole('button', { name: 'Copy new key of Checkout' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  // The key works from an outside client, and the rule masks what it reads.
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN, containers: ['/pci/'] } });
  // The preview gives what these rules give, through the Tokens page's "Read as…".
  await editor.getByRole('textbox', { name: 'Token to preview' }).fill(card.body.id);
  await editor.getByRole('button', { name: 'Preview' }).click();
  const preview = editor.getByRole('table', { name: 'What these rules give' });
  await expect(preview.getByRole('row').first()).toContainText('masked');
  await expect(preview.getByRole('row').first()).toContainText('XXXXXXXXXXXX4242');
  const read = await bench.call('GET', `/tokens/${card.body.id}`, { key });
  expect(read.status).toBe(200);
  expect(read.body.data).toBe('XXXXXXXXXXXX4242');
  expect((await bench.call('GET', '/applications/key', { key })).body.rules).toEqual([
    { description: 'cards, masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] },
  ]);

  await secret.getByRole('button', { name: 'Done' }).click();
  await expect(secret).toHaveCount(0);
  await expect(page.getByRole('main', { name: 'Settings' })).not.toContainText(key);
  await editor.getByRole('table', { name: 'Keys of Checkout' }).getByRole('button', { name: `Revoke key …${key.slice(-4)}` }).click();
  await page.getByRole('alertdialog', { name: `Revoke key …${key.slice(-4)} of “Checkout”?` }).getByRole('button', { name: `Revoke key …${key.slice(-4)}` }).click();
  await expect(editor.getByText('No keys: no client can call as this application.')).toBeVisible();
  expect((await bench.call('GET', `/tokens/${card.body.id}`, { key })).status).toBe(401);

  // Each change is in History as the Settings page's own, in words, and the key's secret is nowhere in it.
  await page.keyboard.press('Control+4');
  await page.getByRole('combobox', { name: 'Show' }).selectOption('changes');
  await expect(page.getByTestId('history-method')).toHaveText(['DELETE', 'CREATE', 'UPDATE', 'CREATE']);
  await page.getByTestId('history-path').last().click();
  await expect(page.getByTestId('entry-sender')).toHaveText('Sent by Settings page');
  await expect(page.getByTestId('entry-answer')).toContainText('Changed in the workbench');
  await expect(page.getByTestId('entry-answer')).toContainText('Created application “Checkout” (private)');
  await expect(page.getByRole('button', { name: /Replay in Composer/ })).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(key);
});

test("says what the vault refuses, labels the Composer's own key, renames and deletes", async ({ page }) => {
  await openSettings(page);
  const applications = settingsSection(page, 'Applications');
  // The Composer's first send as the backend mints its workbench key.
  const backend = bench.engine.bootstrapKeys!.private.application_id;
  await bench.engine.workbench.sendRequest({ id: 'mint', application_id: backend, method: 'GET', path: '/applications/key', headers: [], body: null });
  await page.reload();
  await expect(page.getByRole('main', { name: 'Settings' })).toBeVisible();
  await applications.getByRole('button', { name: 'Tokenbench backend' }).click();
  const editor = applications.getByRole('region', { name: 'Tokenbench backend · private' });
  await expect(editor.getByRole('table', { name: 'Keys of Tokenbench backend' })).toContainText('used by the workbench');

  await editor.getByRole('button', { name: 'Add rule' }).click();
  await editor.getByRole('textbox', { name: 'Container of rule 1' }).fill('pci');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await expect(editor.getByRole('alert')).toHaveText('rules.0.container: A container must start and end with "/"');
  // The refusal is the workbench call's 400, which the browser logs; the page said it, which is what counts.
  workbench.forgive(/status of 400 \(Bad Request\)/);
  await editor.getByRole('button', { name: 'Remove rule 1' }).click();

  await editor.getByRole('textbox', { name: 'Name', exact: true }).fill('Payments back end');
  await editor.getByRole('button', { name: 'Save changes' }).click();
  await expect(applications.getByRole('table', { name: 'Applications' })).toContainText('Payments back end');
  expect((await bench.call('GET', '/applications/key', { key: bench.privateKey })).body.name).toBe('Payments back end');

  // Deleting asks first, saying what goes with it; Escape keeps it.
  const renamed = applications.getByRole('region', { name: 'Payments back end · private' });
  const opener = renamed.getByRole('button', { name: 'Delete application…' });
  await opener.click();
  const question = page.getByRole('alertdialog', { name: 'Delete application “Payments back end”?' });
  await expect(question).toContainText('Its keys stop working at once');
  await expect(question).toContainText('This cannot be undone');
  await expect(question.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(opener).toBeFocused();
  expect((await bench.call('GET', '/applications/key', { key: bench.privateKey })).status).toBe(200);
  await opener.click();
  await question.getByRole('button', { name: 'Delete “Payments back end”' }).click();
  await expect(applications.getByRole('table', { name: 'Applications' }).getByRole('row')).toHaveCount(2);
  await expect(applications.getByRole('status').filter({ hasText: 'Application “Payments back end” deleted: its keys no longer work.' })).toBeVisible();
  expect((await bench.call('GET', '/applications/key', { key: bench.privateKey })).status).toBe(401);
});

test("a new application's form offers the permissions its type may hold, ticked as that type usually needs, and says in place what it refuses", async ({ page }) => {
  await openSettings(page);
  const form = settingsSection(page, 'Applications').getByRole('form', { name: 'New application' });
  const type = form.getByRole('combobox', { name: 'Type of the new application' });
  const permissions = form.getByRole('group', { name: 'Permissions of the new application' });

  await expect(type).toHaveValue('private');
  await expect(permissions).toMatchAriaSnapshot(`
    - checkbox "token:create Create Tokens" [checked]
    - checkbox "token:update Update Tokens" [checked=false]
    - checkbox "token:read Read Tokens" [checked]
    - checkbox "token:search Search Tokens" [checked=false]
    - checkbox "token:delete Delete Tokens" [checked=false]
    - checkbox "token:use Use Tokens in the Proxy" [checked]
  `);
  await type.selectOption('public');
  await expect(permissions).toMatchAriaSnapshot(`
    - checkbox "token:create Create Tokens" [checked]
    - checkbox "token:update Update Tokens" [checked=false]
  `);
  await type.selectOption('management');
  await expect(permissions).toMatchAriaSnapshot(`
    - checkbox "application:read Read Applications" [checked]
    - checkbox "application:create Create Applications" [checked=false]
    - checkbox "application:update Update and regenerate API keys for Applications" [checked=false]
    - checkbox "application:delete Delete Applications" [checked=false]
  `);

  // No name: said beside the field, which is marked invalid; nothing is created.
  await form.getByRole('button', { name: 'Create application' }).click();
  const name = form.getByRole('textbox', { name: 'Name of the new application' });
  await expect(name).toHaveAttribute('aria-invalid', 'true');
  await expect(name).toHaveAccessibleDescription('name is required');
  workbench.forgive(/status of 400 \(Bad Request\)/);
  expect((await bench.engine.workbench.listApplicationDetails({})).map((app) => app.name).sort()).toEqual(['Tokenbench backend', 'Tokenbench management']);

  await name.fill('Front end');
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await type.selectOption('public');
  await permissions.getByRole('checkbox', { name: 'token:update Update Tokens' }).check();
  await form.getByRole('button', { name: 'Create application' }).click();
  await expect(settingsSection(page, 'Applications').getByRole('status').filter({ hasText: 'Created application “Front end” (public) with token:create, token:update.' })).toBeVisible();
  const created = (await bench.engine.workbench.listApplicationDetails({})).find((app) => app.name === 'Front end')!;
  expect(created).toMatchObject({ type: 'public', permissions: ['token:create', 'token:update'] });
  await expect(settingsSection(page, 'Applications').getByRole('region', { name: 'Front end · public' })).toBeVisible();
});

test("revoking a key asks first and says what happened; the keys Tokenbench keeps are labelled, named by their last four and not counted as the clients'", async ({ page }) => {
  await openSettings(page);
  const backend = bench.engine.bootstrapKeys!.private.application_id;
  // The Composer's first send mints the workbench's key, the first export the seed files' key.
  await bench.engine.workbench.sendRequest({ id: 'mint', application_id: backend, method: 'GET', path: '/applications/key', headers: [], body: null });
  await bench.engine.workbench.exportSeed({ include_tokens: false });
  await page.reload();
  const applications = settingsSection(page, 'Applications');
  const row = applications.getByRole('table', { name: 'Applications' }).getByRole('row').filter({ hasText: 'Tokenbench backend' });
  await expect(row.getByRole('cell').nth(2)).toHaveText('1 +2 kept');

  await applications.getByRole('button', { name: 'Tokenbench backend' }).click();
  const editor = applications.getByRole('region', { name: 'Tokenbench backend · private' });
  await expect(editor).toContainText('1 key made for clients, and 2 that Tokenbench keeps for itself.');
  const keys = editor.getByRole('table', { name: 'Keys of Tokenbench backend' });
  const ending = `…${bench.privateKey.slice(-4)}`;
  await expect(keys.getByRole('row')).toHaveText([/^Key/, new RegExp(`^${ending}`), /^….{4}used by the workbench/, /^….{4}carried by seed files/]);

  // Asked first, with the safe choice focused; Escape keeps the key.
  const revoke = keys.getByRole('button', { name: `Revoke key ${ending}` });
  await revoke.click();
  const question = page.getByRole('alertdialog', { name: `Revoke key ${ending} of “Tokenbench backend”?` });
  await expect(question).toContainText('A revoked key cannot come back');
  await expect(question.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(revoke).toBeFocused();
  expect((await bench.call('GET', '/applications/key', { key: bench.privateKey })).status).toBe(200);

  await revoke.click();
  await question.getByRole('button', { name: `Revoke key ${ending}` }).click();
  await expect(question).toHaveCount(0);
  await expect(editor.getByRole('status').filter({ hasText: `Key ${ending} of “Tokenbench backend” revoked: clients using it now get 401.` })).toBeVisible();
  expect((await bench.call('GET', '/applications/key', { key: bench.privateKey })).status).toBe(401);
  await expect(row.getByRole('cell').nth(2)).toHaveText('0 +2 kept');
  await expect(editor).toContainText('No key made for clients, and 2 that Tokenbench keeps for itself.');

  // History names it the same way.
  await bench.engine.history.flush();
  // The newest entry is the 401 just above; the revocation is the workbench's DELETE before it.
  expect((await bench.engine.history.list(10)).find((entry) => entry.method === 'DELETE')?.details).toEqual({
    change: { action: 'revokeApplicationKey', summary: `Revoked key ${ending} of application “Tokenbench backend”` },
  });
});

test('the endpoint to copy, the owner session in it shown by its last four only, and the theme switched from Settings', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openSettings(page);
  const endpoint = settingsSection(page, 'Endpoint');
  await expect(endpoint).toContainText(bench.url);
  await expect(endpoint).toContainText(bench.engine.echoUrl!);
  await expect(endpoint).toContainText('BT');
  // The address a browser opens the workbench with holds the owner's session: copied whole, never shown.
  const { session, url } = bench.engine.browserWorkbench!;
  expect(url).toContain(session);
  await expect(endpoint).toContainText(`${bench.url}/ui/ with your session …${session.slice(-4)}`);
  await expect(page.locator('body')).not.toContainText(session);
  await endpoint.getByRole('button', { name: 'Copy the browser workbench URL with your session' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(url);

  const appearance = settingsSection(page, 'Appearance');
  await appearance.getByRole('radio', { name: 'Dark' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // The sidebar's switch is the same choice.
  await expect(page.getByRole('complementary').getByRole('radio', { name: 'Dark' })).toBeChecked();
  await appearance.getByRole('radio', { name: 'Light' }).check();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('a browser that refuses the clipboard is told where the workbench address is, since the page does not show it whole', async ({ page }) => {
  // As on a plain http page beyond localhost, which browsers give no clipboard.
  await page.addInitScript(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
  await openSettings(page);
  const endpoint = settingsSection(page, 'Endpoint');
  await endpoint.getByRole('button', { name: 'Copy the browser workbench URL with your session' }).click();
  await expect(endpoint.getByRole('status').filter({ hasText: 'Could not copy' })).toHaveText(
    'Could not copy (this browser lets only https and localhost pages copy): serve printed this address when it started',
  );
  // An address the page shows whole can still be selected and copied by hand.
  await endpoint.getByRole('button', { name: 'Copy the API URL' }).click();
  await expect(endpoint.getByRole('status').filter({ hasText: 'Could not copy: select the text and press Ctrl+C' })).toHaveCount(1);
});

test('a lower expression limit refuses the next request over it, without a restart; a start flag wins and is said beside it', async ({ page }) => {
  await openSettings(page, { maxBodyBytes: 4096 });
  const proxy = settingsSection(page, 'Proxy');
  await expect(proxy).toContainText('Set by --max-body 4096 at start, which wins over Settings until the engine starts without it.');
  await expect(proxy.getByRole('spinbutton', { name: /Body limit/ })).toBeDisabled();
  await proxy.getByRole('spinbutton', { name: /Expression limit/ }).fill('2');
  await proxy.getByRole('button', { name: 'Apply' }).click();
  await expect(proxy.getByRole('status').filter({ hasText: 'Applied and saved in the vault' })).toBeVisible();
  await expect(proxy).toContainText('Now 2 token expressions in one /proxy or /detokenize body');
  expect(bench.engine.config.maxExpressions).toBe(2);

  const token = (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } })).body.id;
  await page.keyboard.press('Control+1');
  const c = composer(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body(JSON.stringify({ a: `{{ ${token} }}`, b: `{{ ${token} }}`, c: `{{ ${token} }}` }));
  await c.send();
  await c.expectOutcome('Proxy error', 'The proxy refused the request');
  await expect(c.outcome).toContainText('400 Bad Request');
  await expect(c.outcome).toContainText('The body holds 3 expressions; at most 2 are detokenized per request');

  // Back to the default: the same request goes through.
  await goToSettings(page);
  await settingsSection(page, 'Proxy').getByRole('button', { name: 'Back to the defaults' }).click();
  await expect(settingsSection(page, 'Proxy')).toContainText('Now 20 token expressions');
  await page.keyboard.press('Control+1');
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
});

test('keeps fewer history entries at once and from then on, kept in the vault; clearing leaves History only the entry saying so, live', async ({ page, context }) => {
  await openSettings(page);
  const read = (n: number) => bench.call('GET', `/tokens/missing-${n}`, { key: bench.privateKey, headers: { 'BT-TRACE-ID': `read-${n}` } });
  for (let n = 1; n <= 5; n++) expect((await read(n)).status).toBe(404);
  // A second window on History watches it change.
  const watcher = await context.newPage();
  await openWorkbench(watcher, bench.engine.browserWorkbench!.url, 'History');
  const { rows, paths } = historyPage(watcher);
  await expect(rows).toHaveCount(5);

  const history = settingsSection(page, 'History');
  await expect(history).toContainText('Now the newest 10,000; the oldest leave first. Default 10,000.');
  await expect(history).toContainText('Now kept whatever their age (0).');
  await history.getByRole('spinbutton', { name: /Entries kept/ }).fill('3');
  await history.getByRole('spinbutton', { name: /Maximum age/ }).press('End');
  await page.keyboard.press('Enter');
  await expect(history.getByRole('status').filter({ hasText: 'Applied and saved in the vault' })).toBeVisible();
  await expect(history).toContainText('Now the newest 3; the oldest leave first.');
  // The change is in History too, as one of the three kept.
  await expect(rows).toHaveCount(3);
  expect(await paths()).toEqual(['/settings/retention', '/tokens/missing-5', '/tokens/missing-4']);
  expect((await read(6)).status).toBe(404);
  expect((await bench.engine.history.list(10)).map((entry) => entry.path)).toEqual(['/tokens/missing-6', '/settings/retention', '/tokens/missing-5']);

  // Asked first, in a dialog; "Keep it" keeps it.
  await history.getByRole('button', { name: 'Clear history…' }).click();
  const question = page.getByRole('alertdialog', { name: 'Clear the whole history?' });
  await expect(question).toContainText('There is no undo');
  await question.getByRole('button', { name: 'Keep it' }).click();
  await expect(question).toHaveCount(0);
  expect(await bench.engine.history.list(10)).toHaveLength(3);
  await history.getByRole('button', { name: 'Clear history…' }).click();
  await question.getByRole('button', { name: 'Clear the whole history' }).click();
  await expect(history.getByRole('status').filter({ hasText: 'Cleared: 3 entries removed.' })).toBeVisible();
  await expect(rows).toHaveCount(1);
  expect(await paths()).toEqual(['/history']);
  expect((await read(7)).status).toBe(404);
  await expect(rows).toHaveCount(2);
  expect(await paths()).toEqual(['/tokens/missing-7', '/history']);

  // Kept for the next visit (and the next start: test/workbench/history-retention.test.ts).
  await page.reload();
  await openPage(page, 'Settings');
  await expect(settingsSection(page, 'History').getByRole('spinbutton', { name: /Entries kept/ })).toHaveValue('3');
});

test('exports a seed file, token data only when ticked and warned, and imports one showing its conflicts first', async ({ page }) => {
  await openSettings(page);
  await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  const danger = settingsSection(page, 'Danger zone');

  const plain = page.waitForEvent('download');
  await danger.getByRole('button', { name: 'Export seed file' }).click();
  const file = await plain;
  expect(file.suggestedFilename()).toBe('tokenbench-seed.json');
  const seed = JSON.parse(readFileSync(await file.path(), 'utf8'));
  expect(seed.tokens).toBeUndefined();
  expect(JSON.stringify(seed)).not.toContain(PAN);
  const backend = seed.applications.find((app: { name: string }) => app.name === 'Tokenbench backend');
  expect((await bench.call('GET', '/applications/key', { key: backend.key })).body.name).toBe('Tokenbench backend');
  await expect(
    danger.getByRole('status').filter({ hasText: 'Exported 2 applications with their export keys (2 made for this export, added here too). History records the export.' }),
  ).toBeVisible();

  await danger.getByRole('checkbox', { name: 'Include the tokens, with their data' }).check();
  await expect(danger).toContainText('The file will hold every token’s data in plaintext');
  const withData = page.waitForEvent('download');
  await danger.getByRole('button', { name: 'Export with token data' }).click();
  const dataFile = await withData;
  expect(readFileSync(await dataFile.path(), 'utf8')).toContain(PAN);
  await expect(page.getByRole('main', { name: 'Settings' })).not.toContainText(PAN);

  const incoming = {
    applications: [
      { name: 'Tokenbench backend', type: 'private', permissions: ['token:read'], key: 'another-backend-key-of-24-characters' },
      { name: 'Reporting', type: 'private', permissions: ['token:read'], key: 'the-reporting-key-of-24-characters' },
    ],
  };
  await danger.getByLabel('Seed file to import').setInputFiles({ name: 'incoming.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(incoming)) });
  const preview = danger.getByRole('group', { name: 'What the seed would do' });
  await expect(preview).toContainText('It would create 1, leave 0 as they are, and skip 1 in conflict.');
  await expect(preview.getByRole('list', { name: 'Conflicts, skipped' })).toHaveText('application "Tokenbench backend": an application of that name exists with another key');
  expect((await bench.call('GET', '/applications/key', { key: 'the-reporting-key-of-24-characters' })).status).toBe(401);
  await preview.getByRole('button', { name: 'Apply the seed' }).click();
  await expect(danger.getByRole('group', { name: 'Seed applied' })).toContainText('Applied: 1 created.');
  expect((await bench.call('GET', '/applications/key', { key: 'the-reporting-key-of-24-characters' })).body.name).toBe('Reporting');
  await expect(settingsSection(page, 'Applications').getByRole('table', { name: 'Applications' })).toContainText('Reporting');

  await danger.getByLabel('Seed file to import').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"applications": [') });
  await expect(danger.getByRole('alert')).toContainText('broken.json is not JSON');
});

test('every export carries the same export key, labelled and revocable in Settings; History lists the exports and the keys made', async ({ page }) => {
  await openSettings(page);
  const danger = settingsSection(page, 'Danger zone');
  const exported = async () => {
    const download = page.waitForEvent('download');
    await danger.getByRole('button', { name: 'Export seed file' }).click();
    const seed = JSON.parse(readFileSync(await (await download).path(), 'utf8')) as { applications: { name: string; key: string }[] };
    return seed.applications.find((app) => app.name === 'Tokenbench backend')!.key;
  };
  const key = await exported();
  expect(await exported()).toBe(key);
  await expect(danger.getByRole('status').filter({ hasText: 'Exported' })).toHaveText('Exported 2 applications with their export keys. History records the export.');

  const applications = settingsSection(page, 'Applications');
  await applications.getByRole('button', { name: 'Tokenbench backend' }).click();
  const keys = applications.getByRole('table', { name: 'Keys of Tokenbench backend' });
  const exportKey = keys.getByRole('row').filter({ hasText: 'carried by seed files' });
  await expect(exportKey).toHaveCount(1);
  // Revoked like any key, once the dialog has said what it means: files exported before stop working here, and the
  // next export makes another.
  await exportKey.getByRole('button', { name: `Revoke key …${key.slice(-4)}` }).click();
  const question = page.getByRole('alertdialog', { name: `Revoke key …${key.slice(-4)} of “Tokenbench backend”?` });
  await expect(question).toContainText('Seed files exported so far carry it');
  await question.getByRole('button', { name: `Revoke key …${key.slice(-4)}` }).click();
  await expect(exportKey).toHaveCount(0);
  expect((await bench.call('GET', '/applications/key', { key })).status).toBe(401);
  const next = await exported();
  expect(next).not.toBe(key);
  await expect(danger.getByRole('status').filter({ hasText: 'Exported' })).toHaveText(
    'Exported 2 applications with their export keys (1 made for this export, added here too). History records the export.',
  );
  await expect(exportKey).toHaveCount(1);

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'History' }).click();
  const { show } = historyPage(page);
  // A request's sender is a line of text, with no role or name of its own: its test id finds it.
  const senders = page.getByTestId('history-sender');
  await show('changes');
  await expect(senders.filter({ hasText: `Sent by Settings page · Made the export key …${key.slice(-4)} of application “Tokenbench backend”` })).toHaveCount(1);
  await expect(senders.filter({ hasText: `Revoked the export key …${key.slice(-4)} of application “Tokenbench backend”` })).toHaveCount(1);
  await expect(senders.filter({ hasText: `Made the export key …${next.slice(-4)} of application “Tokenbench backend”` })).toHaveCount(1);
  await show('reveals');
  await expect(senders).toHaveCount(3);
  await expect(senders.first()).toContainText('Sent by Settings page · Exported a seed file: 2 applications with their export keys (…');
  await expect(senders.last()).toContainText(`…${key.slice(-4)}`);
  await expect(senders.first()).toContainText(`…${next.slice(-4)}`);
  await expect(senders.first()).toContainText('), no token data');
  await page.getByTestId('history-path').first().click();
  await expect(page.getByTestId('entry-answer')).toContainText('Revealed in the workbench');

  const [har] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export the matching requests as HAR' }).click()]);
  const text = readFileSync((await har.path())!, 'utf8');
  expect(text).not.toContain(key);
  const entries = JSON.parse(text).log.entries as { request: { method: string }; _tokenbench: { reveal?: { target: string; keys: { key_last4: string }[] } } }[];
  expect(entries.map((entry) => [entry.request.method, entry._tokenbench.reveal?.target])).toEqual(Array(3).fill(['REVEAL', 'seed']));
  // HAR lists them oldest first.
  expect(entries[0]._tokenbench.reveal!.keys.map((hint) => hint.key_last4)).toContain(key.slice(-4));
  expect(entries[2]._tokenbench.reveal!.keys.map((hint) => hint.key_last4)).toContain(next.slice(-4));
  expect(text).not.toContain(next);
  await expect(page.locator('body')).not.toContainText(key);
});

test("the runtime key proxy transforms call back with is shown apart as the runtime key; revoking it says the next call makes another", async ({ page }) => {
  await openSettings(page, { echoPort: 0 });
  const backend = bench.engine.bootstrapKeys!.private.application_id;
  // A proxy of the backend whose transform uses bt: its first call makes the runtime key.
  const proxy = await bench.call('POST', '/proxies', {
    key: bench.managementKey,
    body: {
      name: 'charges',
      destination_url: bench.engine.echoUrl,
      application: { id: backend },
      request_transforms: [{ code: "module.exports = async (req) => { await req.bt.tokens.list(); return { body: { ok: true } }; };" }],
    },
  });
  const call = () => bench.call('POST', '/proxy', { key: bench.privateKey, body: {}, headers: { 'BT-PROXY-KEY': proxy.body.key } });
  expect((await call()).status).toBe(200);
  await page.reload();
  const applications = settingsSection(page, 'Applications');
  await applications.getByRole('button', { name: 'Tokenbench backend' }).click();
  const editor = applications.getByRole('region', { name: 'Tokenbench backend · private' });
  const keys = editor.getByRole('table', { name: 'Keys of Tokenbench backend' });
  const runtimeRow = keys.getByRole('row').filter({ hasText: /^….{4}used by proxy transforms/ });
  await expect(runtimeRow).toHaveCount(1);
  await expect(editor).toContainText('1 key made for clients, and 1 that Tokenbench keeps for itself.');

  const ending = (await runtimeRow.locator('code').innerText()).trim();
  await runtimeRow.getByRole('button', { name: `Revoke key ${ending}` }).click();
  const question = page.getByRole('alertdialog', { name: `Revoke key ${ending} of “Tokenbench backend”?` });
  await expect(question).toContainText('Proxy transforms calling with it get 401 at once; the next call that needs one makes another.');
  await question.getByRole('button', { name: `Revoke key ${ending}` }).click();
  await expect(editor.getByRole('status').filter({ hasText: `Key ${ending} of “Tokenbench backend” revoked: the next proxy call that needs one makes another.` })).toBeVisible();
  await expect(runtimeRow).toHaveCount(0);

  // The next call makes another; History has each made and the revocation, by the key's id.
  expect((await call()).status).toBe(200);
  await page.reload();
  await applications.getByRole('button', { name: 'Tokenbench backend' }).click();
  await expect(keys.getByRole('row').filter({ hasText: /^….{4}used by proxy transforms/ })).toHaveCount(1);
  await page.keyboard.press('Control+4');
  await page.getByRole('combobox', { name: 'Show' }).selectOption('changes');
  await expect(page.getByTestId('history-path').filter({ hasText: `/applications/${backend}/keys/` })).toHaveCount(3);
});

test("offers log:read to a management application, and keeps GET /logs lines for the hours set beside History's retention, which clearing History leaves alone", async ({ page }) => {
  await openSettings(page);
  const form = settingsSection(page, 'Applications').getByRole('form', { name: 'New application' });
  await form.getByRole('combobox', { name: 'Type of the new application' }).selectOption('management');
  await expect(form.getByRole('checkbox', { name: 'log:read Read audit logs' })).toBeVisible();

  const history = settingsSection(page, 'History');
  await expect(history).toContainText('Now GET /logs keeps who did what for 24 hours. Default 24.');
  await history.getByRole('spinbutton', { name: /Log lines kept/ }).fill('48');
  await page.keyboard.press('Enter');
  await expect(history.getByRole('status').filter({ hasText: 'Applied and saved in the vault' })).toBeVisible();
  await expect(history).toContainText('Now GET /logs keeps who did what for 48 hours.');
  expect((await bench.workbench('getSettings')).body.logs.logRetentionHours).toMatchObject({ value: 48, stored: 48 });

  await history.getByRole('button', { name: 'Clear history…' }).click();
  await expect(page.getByRole('alertdialog', { name: 'Clear the whole history?' })).toContainText('The lines GET /logs reads are not removed');
});
