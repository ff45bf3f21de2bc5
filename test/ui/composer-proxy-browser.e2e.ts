import { expect, test } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { historyPage } from './support/history-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * The Composer sending through a pre-configured proxy chosen by name (docs/api.md, The workbench's own endpoints): the
 * request goes to /proxy with the proxy's key, which the engine adds and the page never holds.
 */
const PAN = '4242424242424242';
let bench: TestEngine;
const workbench = workbenchTests();
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('choose a pre-configured proxy by name, send through it, see the destination answer and History naming the proxy', async ({ page }) => {
  bench = await workbench.start();
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  const proxy = await bench.call('POST', '/proxies', { key: bench.managementKey, body: { name: 'charges', destination_url: `${bench.engine.echoUrl}/v1` } });
  expect(proxy.status).toBe(201);

  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  const through = c.request.getByRole('combobox', { name: 'Through proxy' });
  await through.selectOption({ label: 'charges' });
  await c.request.getByRole('textbox', { name: 'Path after /proxy' }).fill('/pay?currency=eur');
  await c.body(`{"pan": "{{ ${card.body.id} }}"}`);
  // The Composer's checks apply, to the proxy's destination: a broken expression is its one error, and the
  // destination's notes are the proxy's (an http address on 127.0.0.1).
  const checks = page.getByRole('region', { name: 'Checks before sending' });
  await c.body(`{"pan": "{{ ${card.body.id} | no_such_filter }}"}`);
  await expect(checks).toContainText('The proxy would refuse this request: 1 error, 2 notes.');
  await expect(checks.getByRole('list', { name: 'Flags' })).toContainText('undefined filter: no_such_filter');
  await expect(checks.getByRole('list', { name: 'Flags' })).toContainText('Destination host 127.0.0.1 is an IP address');
  await c.body(`{"pan": "{{ ${card.body.id} }}"}`);
  await expect(checks).not.toContainText('no_such_filter');
  await c.send();

  await c.expectOutcome('Destination', 'The destination answered');
  const echoed = await c.rawBody();
  expect(echoed).toContain('/v1/pay');
  expect(echoed).toContain('XXXXXXXXXXXX4242');
  await expect(page.locator('body')).not.toContainText(proxy.body.key);

  // Code to copy calls the same proxy: its key read from the environment, never written in, and the proxy named.
  await c.request.getByRole('button', { name: 'Copy as cURL' }).click();
  await expect(c.request.getByRole('status').filter({ hasText: 'Copied as cURL' })).toHaveText('Copied as cURL through the proxy “charges”. Set BT_API_KEY and BT_PROXY_KEY before running it.');
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain('# Through the pre-configured proxy “charges”');
  expect(curl).toContain('"BT-PROXY-KEY: $BT_PROXY_KEY"');
  expect(curl).toContain('/proxy/pay?currency=eur');
  expect(curl).not.toContain(proxy.body.key);

  await page.keyboard.press('Control+4');
  const history = historyPage(page);
  await history.open('/proxy/pay?currency=eur');
  await expect(page.getByTestId('entry-preconfigured')).toHaveText('charges');
  await expect(page.getByTestId('entry-destination')).toContainText('/v1/pay');
  await expect(page.locator('body')).not.toContainText(proxy.body.key);
});
