import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { historyPage } from './support/history-page';
import { goToProxies, proxiesPage } from './support/proxies-page';
import { openPage, openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** The Proxies page in Chromium against a real engine and a real destination on loopback. */
const PAN = '4242424242424242';
const workbench = workbenchTests();
let bench: TestEngine;
/** A destination that answers each request with what it received, as JSON. */
let destination: Server;
let destinationUrl: string;

test.beforeEach(async () => {
  destination = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ received: Buffer.concat(chunks).toString('utf8'), path: req.url }));
    });
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}/v1`;
});
test.afterEach(() => {
  destination.closeAllConnections();
  destination.close();
});

const CODE = `module.exports = async function (req) {
  const { body, headers } = req.args;
  console.log('charging', body.amount);
  return { body: { ...body, note: 'from code' }, headers };
};`;

test('create a proxy with code, see a syntax error while typing, try it and read its trace, edit it, delete it', async ({ page }) => {
  bench = await workbench.start();
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToProxies(page);
  const proxies = proxiesPage(page);
  await expect(proxies.list.getByText('No proxies yet')).toBeVisible();

  await proxies.editor.getByRole('textbox', { name: 'Name', exact: true }).fill('charges');
  await proxies.editor.getByRole('textbox', { name: 'Destination URL' }).fill(destinationUrl);
  await proxies.editor.getByRole('combobox', { name: 'Type of the new request transform' }).selectOption('code');
  await proxies.editor.getByRole('button', { name: 'Add request transform' }).click();
  // A broken function is flagged as it is typed, before the engine sees it.
  await proxies.code('request transform 1').fill('module.exports = async function (req) {\n  return { body: req.args.body ');
  await expect(proxies.editor.getByRole('status').filter({ hasText: /Syntax error on line \d/ })).toBeVisible();
  await proxies.code('request transform 1').fill(CODE);
  await expect(proxies.editor.getByRole('status').filter({ hasText: 'No syntax errors' })).toBeVisible();
  await proxies.editor.getByRole('textbox', { name: 'Name of new configuration row' }).fill('region');
  await proxies.editor.getByRole('textbox', { name: 'Value of configuration region' }).fill('eu');
  await proxies.editor.getByRole('button', { name: /Create proxy/ }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Created proxy “charges”.' })).toBeVisible();
  await expect(proxies.list.getByRole('row', { name: /charges/ })).toContainText('request: code');

  // The snippet calls the proxy with its key header, both keys read from the environment.
  const snippet = page.getByRole('region', { name: 'Call it' });
  await expect(snippet.getByLabel('cURL snippet', { exact: true })).toContainText('BT-PROXY-KEY: $BT_PROXY_KEY');
  await expect(snippet.getByLabel('cURL snippet', { exact: true })).toContainText('BT-API-KEY: $BT_API_KEY');

  // Try: a card through the proxy, as the back end; the trace shows each step, the code's diff and its log line.
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  await proxies.tryPanel.getByRole('textbox', { name: 'Path after /proxy' }).fill('/charges');
  await proxies.tryPanel.getByRole('textbox', { name: 'Sample request body' }).fill(`{"amount": 100, "number": "{{ ${card.body.id} }}"}`);
  await proxies.tryPanel.getByRole('button', { name: 'Send through the proxy' }).click();
  await expect(proxies.tryPanel.getByRole('status').filter({ hasText: '200 OK' })).toBeVisible();
  await expect(proxies.steps()).toHaveText([/^1\. Detokenize/, /^2\. Request code/, /^3\. Destination/]);
  const code = proxies.step('Request code');
  await expect(code.getByRole('list', { name: /Log lines/ })).toHaveText('log: charging 100');
  await expect(code.getByLabel(/Body before and after/)).toContainText('+   "note": "from code"');
  await expect(proxies.tryPanel).toContainText('/v1/charges');
  await expect(page.locator('body')).not.toContainText(PAN);

  // An edit applies to the next call.
  await proxies.code('request transform 1').fill(CODE.replace('from code', 'edited'));
  await page.keyboard.press('Control+s');
  await expect(page.getByRole('status').filter({ hasText: 'Saved proxy “charges”.' })).toBeVisible();
  await proxies.tryPanel.getByRole('button', { name: 'Send through the proxy' }).click();
  await expect(proxies.step('Request code').getByLabel(/Body before and after/)).toContainText('+   "note": "edited"');

  // Deleting asks first, then the key stops working.
  await proxies.editor.getByRole('button', { name: 'Delete proxy…' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete proxy “charges”?' });
  await dialog.getByRole('button', { name: 'Delete proxy' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Deleted proxy “charges”' })).toBeVisible();
  await expect(proxies.list.getByText('No proxies yet')).toBeVisible();
});

test('the engine refuses a field: the form says so at that field and moves the focus there', async ({ page }) => {
  bench = await workbench.start();
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToProxies(page);
  const proxies = proxiesPage(page);
  await proxies.editor.getByRole('textbox', { name: 'Name', exact: true }).fill('broken');
  await proxies.editor.getByRole('textbox', { name: 'Destination URL' }).fill('ftp://example.com');
  await proxies.editor.getByRole('button', { name: /Create proxy/ }).click();
  const destinationField = proxies.editor.getByRole('textbox', { name: 'Destination URL' });
  await expect(destinationField).toBeFocused();
  await expect(destinationField).toHaveAccessibleDescription(/destination_url/);
  await expect(proxies.editor.getByRole('alert')).toContainText('each is said where it is');

  // Code the editor parses but Node will not compile (a name declared twice): the engine's refusal sits under the code.
  await destinationField.fill(destinationUrl);
  await proxies.editor.getByRole('button', { name: 'Add request transform' }).click();
  await proxies.code('request transform 1').fill('let a = 1;\nlet a = 2;\nmodule.exports = async (req) => req.args;');
  await expect(proxies.editor.getByRole('status').filter({ hasText: 'No syntax errors' })).toBeVisible();
  await proxies.editor.getByRole('button', { name: /Create proxy/ }).click();
  await expect(page.locator(':focus')).toContainText('code does not compile');
  await expect(page.locator(':focus')).toContainText("'a' has already been declared");
  // The refusals reached the browser as the workbench's 400s, which it logs.
  workbench.forgive(/status of 400 \(Bad Request\)/);
});

test("History shows the pipeline trace of another client's call", async ({ page }) => {
  bench = await workbench.start();
  const made = await bench.call('POST', '/proxies', {
    key: bench.managementKey,
    body: { name: 'webhook', destination_url: destinationUrl, require_auth: false, request_transforms: [{ type: 'code', code: CODE }] },
  });
  expect(made.status).toBe(201);
  const called = await bench.call('POST', '/proxy/hooks', { headers: { 'BT-PROXY-KEY': made.body.key }, body: { amount: 7 } });
  expect(called.status).toBe(200);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const history = historyPage(page);
  await history.open('/proxy/hooks');
  await expect(history.entry.getByRole('heading', { name: 'Pipeline of proxy “webhook”' })).toBeVisible();
  const steps = proxiesPage(page).steps(history.entry);
  await expect(steps).toHaveText([/^1\. Request code/, /^2\. Destination/]);
  await expect(steps.first().getByRole('list', { name: /Log lines/ })).toHaveText('log: charging 7');
  await expect(steps.first().getByLabel(/Body before and after/)).toContainText('+   "note": "from code"');
  await openPage(page, 'Proxies');
  await expect(proxiesPage(page).list.getByRole('button', { name: 'webhook' })).toBeVisible();
});

test('choosing another proxy with changes not saved asks first, and keeps them unless told to discard', async ({ page }) => {
  bench = await workbench.start();
  for (const name of ['first', 'second']) {
    expect((await bench.call('POST', '/proxies', { key: bench.managementKey, body: { name, destination_url: destinationUrl } })).status).toBe(201);
  }
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToProxies(page);
  const proxies = proxiesPage(page);
  await expect(proxies.list.getByRole('row', { name: /first/ })).toContainText('none');
  await proxies.open('first');
  const destinationField = proxies.editor.getByRole('textbox', { name: 'Destination URL' });
  await destinationField.fill(`${destinationUrl}/changed`);
  await proxies.open('second');
  const dialog = page.getByRole('alertdialog', { name: 'Discard your changes to proxy “first”?' });
  await dialog.getByRole('button', { name: 'Keep editing' }).click();
  await expect(destinationField).toHaveValue(`${destinationUrl}/changed`);
  await proxies.open('second');
  await dialog.getByRole('button', { name: 'Discard changes' }).click();
  await expect(page.getByRole('form', { name: 'Proxy “second”' })).toBeVisible();
  await proxies.open('first');
  await expect(destinationField).toHaveValue(destinationUrl);
});

test("Try's body editor completes a token by its mask and flags one the vault does not have, as the Composer's does", async ({ page }) => {
  bench = await workbench.start();
  expect((await bench.call('POST', '/proxies', { key: bench.managementKey, body: { name: 'charges', destination_url: destinationUrl } })).status).toBe(201);
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToProxies(page);
  const proxies = proxiesPage(page);
  await proxies.open('charges');
  const body = proxies.tryPanel.getByRole('textbox', { name: 'Sample request body' });
  await body.fill('{"number": "{{ 9f1c1f0e-8e0b-4d5e-9b39-1f0b6c9f3a11 }}"}');
  await expect(proxies.tryPanel.locator('.cm-lintRange-error')).toHaveText('{{ 9f1c1f0e-8e0b-4d5e-9b39-1f0b6c9f3a11 }}');
  await body.fill('{"number": "');
  await body.press('End');
  await page.keyboard.type('{{ ');
  await page.keyboard.press('Control+Space');
  await page.getByRole('listbox', { name: 'Completions' }).getByRole('option', { name: /XXXXXXXXXXXX4242/ }).click();
  await expect(body).toContainText(`{{ ${card.body.id} }}`);
  await expect(proxies.tryPanel.locator('.cm-lintRange-error')).toHaveCount(0);
});
