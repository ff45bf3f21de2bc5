import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { UI_DIR } from './support/paths';
import { openWorkbench } from './support/workbench-page';

/** A colleague's cURL command or a HAR, pasted into the Composer: the same request, answered the same. */
let bench: TestEngine;
test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});
test.afterEach(() => bench.stop());

const PAN = '4242424242424242';

test('a pasted cURL command is sent and answered the same as when curl ran it', async ({ page }) => {
  const token = (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } })).body;
  const command = `curl '${bench.url}/proxy/v1/charges?amount=10' -H "BT-API-KEY: $BT_API_KEY" -H 'BT-PROXY-URL: ${bench.engine.echoUrl}' -H 'Content-Type: application/json' -d '{"pan":"{{ ${token.id} }}"}'`;
  // Run as a user runs it (asynchronously: the engine answering it lives in this process).
  const { stdout } = await promisify(execFile)('sh', ['-c', `${command} --silent`], { env: { ...process.env, BT_API_KEY: bench.privateKey } });
  const ran = JSON.parse(stdout);
  expect(ran.body).toBe(`{"pan":"${PAN}"}`);

  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await page.getByRole('region', { name: 'Saved requests' }).getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a request' });
  const pasted = dialog.getByRole('textbox', { name: /A cURL command, or a HAR/ });
  await expect(pasted).toBeFocused();
  await pasted.fill(command);
  await pasted.press('Control+Enter');
  await expect(dialog).toHaveCount(0);

  await expect(c.request.getByRole('textbox', { name: 'Destination URL' })).toHaveValue(`${bench.engine.echoUrl}/v1/charges?amount=10`);
  await expect(c.request.getByRole('status')).toContainText('Imported POST');
  await expect(c.request.getByRole('status')).toContainText('The API key was left out');
  await c.send();
  await c.expectOutcome('destination', /200/);
  // The echo repeats the card number, which the answer masks until it is revealed.
  await c.response.getByRole('button', { name: 'Reveal values' }).click();
  await expect.poll(async () => JSON.parse(await c.rawBody()).body).toBe(ran.body);
  const echoed = JSON.parse(await c.rawBody());
  expect([echoed.method, echoed.path, echoed.query, echoed.body]).toEqual([ran.method, ran.path, ran.query, ran.body]);
});

test('a HAR of several requests lists them to pick one; what is not a command says so in place', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await page.getByRole('region', { name: 'Saved requests' }).getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a request' });
  const pasted = dialog.getByRole('textbox', { name: /A cURL command, or a HAR/ });

  await pasted.fill('wget https://api.example.com');
  await dialog.getByRole('button', { name: /^Import/ }).click();
  await expect(dialog.getByRole('alert')).toContainText('Paste a cURL command (starting with curl)');

  const request = (method: string, url: string) => ({ request: { method, url, headers: [{ name: 'BT-API-KEY', value: 'key_test_1' }] } });
  await pasted.fill(JSON.stringify({ log: { entries: [request('GET', 'https://api.basistheory.com/tokens/t-1'), request('DELETE', 'https://api.basistheory.com/tokens/t-2')] } }));
  await dialog.getByRole('button', { name: /^Import/ }).click();
  await expect(dialog).toContainText('2 requests in the HAR');
  await expect(dialog.getByRole('button', { name: 'GET https://api.basistheory.com/tokens/t-1' })).toBeFocused();
  await dialog.getByRole('button', { name: 'DELETE https://api.basistheory.com/tokens/t-2' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(c.request.getByRole('radio', { name: 'Vault API' })).toBeChecked();
  await expect(c.request.getByRole('textbox', { name: 'Path' })).toHaveValue('/tokens/t-2');
  await expect(c.request.getByRole('combobox', { name: 'Method' })).toHaveValue('DELETE');

  // Escape leaves without touching the request.
  await page.getByRole('region', { name: 'Saved requests' }).getByRole('button', { name: 'Import…' }).click();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(c.request.getByRole('textbox', { name: 'Path' })).toHaveValue('/tokens/t-2');
});

test('credentials in a pasted command move into Secrets, and the request says so; a file: address is refused', async ({ page }) => {
  const value = 'sk_live_51HqImportBrowserValue0001';
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await page.getByRole('region', { name: 'Saved requests' }).getByRole('button', { name: 'Import…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import a request' });
  const pasted = dialog.getByRole('textbox', { name: /A cURL command, or a HAR/ });

  await pasted.fill('curl file:///etc/passwd');
  await dialog.getByRole('button', { name: /^Import/ }).click();
  await expect(dialog.getByRole('alert')).toHaveText('A file: address cannot be imported: the Composer sends http and https requests only.');

  await pasted.fill(`curl https://api.stripe.com/v1/charges -H 'Authorization: Bearer ${value}'`);
  await dialog.getByRole('button', { name: /^Import/ }).click();
  await expect(dialog).toHaveCount(0);
  await expect(c.request.getByRole('status')).toContainText('Moved 1 credential into Secrets, where the request refers to it by name: Authorization as api.stripe.com-authorization.');
  await c.request.getByRole('tab', { name: /Headers/ }).click();
  await expect(c.request.getByRole('textbox', { name: 'Value of headers Authorization' })).toHaveValue('Bearer ${secret:api.stripe.com-authorization}');
  await expect(page.locator('body')).not.toContainText(value);
});
