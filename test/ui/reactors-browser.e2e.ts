import { readdirSync, rmSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { tempDir } from '../support/test-engine';
import { historyPage } from './support/history-page';
import { goToReactors, reactorsPage } from './support/reactors-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** The Reactors page in Chromium against a real engine: every react goes through the real /reactors/{id}/react route. */
const PAN = '4242424242424242';
const workbench = workbenchTests();

const CODE = `module.exports = async function (req) {
  const { card, amount } = req.args;
  console.log('charging', amount, 'in', req.configuration.region, 'card', card);
  return { raw: { last4: card.slice(-4), amount, note: 'from code' } };
};`;

/** A new engine, its workbench open on Reactors, with none yet. */
async function start(page: Page) {
  const bench = await workbench.start();
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToReactors(page);
  const reactors = reactorsPage(page);
  await expect(reactors.list.getByText('No reactors yet')).toBeVisible();
  return { bench, reactors };
}

test('create a reactor, try it with a token in its args and read the trace, edit it (unsaved changes guarded), delete it', async ({ page }) => {
  const { bench, reactors } = await start(page);

  await reactors.editor.getByRole('textbox', { name: 'Name', exact: true }).fill('charge');
  // A broken function is flagged as it is typed, before the engine sees it.
  await reactors.code().fill('module.exports = async function (req) {\n  return { raw: req.args ');
  await reactors.syntaxSays(/Syntax error on line \d/);
  await reactors.code().fill(CODE);
  await reactors.syntaxSays('No syntax errors');
  await reactors.configure('region', 'eu');
  await reactors.editor.getByRole('button', { name: /Create reactor/ }).click();
  await reactors.said('Created reactor “charge”.');
  await expect(reactors.list.getByRole('row', { name: /charge/ })).toContainText('node-bt');

  // The snippet calls the real route, the key read from the environment; the Node SDK's call is there too.
  const snippet = page.getByRole('region', { name: 'Call it' });
  await expect(snippet.getByLabel('cURL snippet', { exact: true })).toContainText(/\/reactors\/[0-9a-f-]{36}\/react/);
  await expect(snippet.getByLabel('cURL snippet', { exact: true })).toContainText('BT-API-KEY: $BT_API_KEY');
  await snippet.getByRole('radio', { name: 'Node SDK' }).check();
  await expect(snippet.getByLabel('Node SDK snippet', { exact: true })).toContainText('client.reactors.react(');

  // Try: a card token in the args; the trace shows the args in (masked), the code and its log line, the result out.
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  await reactors.args().fill(`{"card": "{{ ${card.body.id} }}", "amount": 5}`);
  await reactors.tryPanel.getByRole('button', { name: 'React' }).click();
  await expect(reactors.tryPanel.getByRole('status').filter({ hasText: '200 OK' })).toBeVisible();
  await expect(reactors.steps()).toHaveText([/^1\. Args in/, /^2\. Code/, /^3\. Result out/]);
  await expect(reactors.step('Code').getByRole('list', { name: /Log lines/ })).toContainText('log: charging 5 in eu card');
  await expect(reactors.step('Result out')).toContainText('"note": "from code"');
  await expect(reactors.step('Result out')).toContainText('"amount": 5');
  // The answer is the client's own: the last four it asked for, never the whole number.
  await expect(reactors.tryPanel.getByRole('region', { name: 'Answer to the client' })).toContainText('"last4": "4242"');
  await expect(page.locator('body')).not.toContainText(PAN);

  // Another reactor chosen with changes unsaved: the page asks first; kept, they save with Ctrl+S.
  await reactors.code().fill(CODE.replace('from code', 'edited'));
  await reactors.list.getByRole('button', { name: 'New reactor' }).click();
  const discard = page.getByRole('alertdialog', { name: 'Discard your changes to reactor “charge”?' });
  await discard.getByRole('button', { name: 'Keep editing' }).click();
  await reactors.code().click();
  await page.keyboard.press('Control+s');
  await reactors.said('Saved reactor “charge”.');
  await reactors.tryPanel.getByRole('button', { name: 'React' }).click();
  await expect(reactors.step('Result out')).toContainText('"note": "edited"');

  // Deleting asks first; then the reactor is gone.
  await reactors.editor.getByRole('button', { name: 'Delete reactor…' }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete reactor “charge”?' });
  await dialog.getByRole('button', { name: 'Delete reactor' }).click();
  await reactors.said('Deleted reactor “charge”');
  await expect(reactors.list.getByText('No reactors yet')).toBeVisible();
});

test("a client's reactor appears live, and its react's trace reads in History, masked", async ({ page }) => {
  const { bench, reactors } = await start(page);

  const made = await bench.call('POST', '/reactors', { key: bench.managementKey, body: { name: 'from a client', code: CODE, configuration: { region: 'us' } } });
  expect(made.status).toBe(201);
  await expect(reactors.list.getByRole('button', { name: 'from a client', exact: true })).toBeVisible();

  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  const reacted = await bench.call('POST', `/reactors/${made.body.id}/react`, { key: bench.privateKey, body: { args: { card: `{{ ${card.body.id} }}`, amount: 7 } } });
  expect(reacted.status).toBe(200);

  await page.keyboard.press('Control+4');
  const history = historyPage(page);
  await history.open(`/reactors/${made.body.id}/react`);
  const panel = history.entry;
  await expect(panel.getByRole('heading', { name: 'Reactor “from a client”' })).toBeVisible();
  const steps = reactorsPage(page).steps(panel);
  await expect(steps).toHaveText([/^1\. Args in/, /^2\. Code/, /^3\. Result out/]);
  await expect(steps.nth(1).getByRole('list', { name: /Log lines/ })).toContainText('log: charging 7 in us card');
  await expect(page.locator('body')).not.toContainText(PAN);
});

test("Try's args editor flags, where they are, a token the chosen application may not use and one the vault does not have", async ({ page }) => {
  const bench = await workbench.start();
  expect((await bench.call('POST', '/reactors', { key: bench.managementKey, body: { name: 'flagged', code: CODE } })).status).toBe(201);
  const rules = [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['reactor:invoke'] }];
  expect((await bench.call('POST', '/applications', { key: bench.managementKey, body: { name: 'general only', type: 'private', rules } })).status).toBe(201);
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToReactors(page);
  const reactors = reactorsPage(page);
  await reactors.list.getByRole('button', { name: 'flagged', exact: true }).click();

  const unknown = '9f1c1f0e-8e0b-4d5e-9b39-1f0b6c9f3a11';
  await reactors.args().fill(`{"card": "{{ ${card.body.id} }}", "other": "{{ ${unknown} }}"}`);
  // As the first private application (token:use everywhere) only the unknown id is wrong.
  await expect(reactors.tryPanel.locator('.cm-lintRange-error')).toHaveText([`{{ ${unknown} }}`]);
  await reactors.tryPanel.getByRole('combobox', { name: 'React as' }).selectOption({ label: 'general only · private' });
  await expect(reactors.tryPanel.locator('.cm-lintRange-error')).toHaveText([`{{ ${card.body.id} }}`, `{{ ${unknown} }}`]);
  await reactors.tryPanel.locator('.cm-lintRange-error').first().hover();
  await expect(page.getByRole('tooltip').or(page.locator('.cm-tooltip-lint'))).toContainText('no rule of “general only” grants reactor:invoke on /pci/high/');
  // The expression's own hover asks the engine as the application chosen now, not the one chosen when the editor was made.
  await page.mouse.move(0, 0);
  await reactors.tryPanel.locator('.cm-expression').first().hover();
  await expect(page.locator('.expression-facts')).toContainText('“general only”');

  await reactors.args().fill(`{"other": "{{ ${unknown} }}",}`);
  await expect(reactors.tryPanel.locator('.cm-lintRange-error')).toHaveText([`{{ ${unknown} }}`, '}']);
});

test('Try reacts asynchronously: pending while the code runs, then the result with the react-async trace', async ({ page }) => {
  const { bench, reactors } = await start(page);
  const slow = `module.exports = async function (req) {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  console.log('done waiting');
  return { raw: { last4: req.args.card.slice(-4), late: true } };
};`;
  expect((await bench.call('POST', '/reactors', { key: bench.managementKey, body: { name: 'slow', code: slow } })).status).toBe(201);
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  await reactors.list.getByRole('button', { name: 'slow', exact: true }).click();

  await reactors.args().fill(`{"card": "{{ ${card.body.id} }}"}`);
  await reactors.tryPanel.getByRole('checkbox', { name: /Asynchronously/ }).check();
  await reactors.tryPanel.getByRole('button', { name: 'React' }).click();
  await expect(reactors.tryPanel.getByRole('status').filter({ hasText: /^Pending: react-async accepted as request [0-9a-f-]{36}/ })).toBeVisible();
  await expect(reactors.tryPanel.getByRole('button', { name: 'Waiting for the result…' })).toBeDisabled();

  await expect(reactors.tryPanel.getByRole('status').filter({ hasText: '200 OK' })).toBeVisible({ timeout: 15_000 });
  await expect(reactors.tryPanel.getByRole('status').filter({ hasText: /^Pending/ })).toHaveCount(0);
  await expect(reactors.tryPanel.getByRole('heading', { name: /Reactor “slow” · async request [0-9a-f-]{36}/ })).toBeVisible();
  await expect(reactors.steps()).toHaveText([/^1\. Args in/, /^2\. Code/, /^3\. Result out/]);
  await expect(reactors.step('Code').getByRole('list', { name: /Log lines/ })).toContainText('log: done waiting');
  await expect(reactors.tryPanel.getByRole('region', { name: 'Answer to the client' })).toContainText('"late": true');
  await expect(page.locator('body')).not.toContainText(PAN);
});

test('a reactor made through the API exported to the proxies folder, and a hosted reactor imported there', async ({ page }) => {
  const folder = tempDir('tokenbench-reactors-ui-');
  const bench = await workbench.start({ proxiesDir: folder });
  const API_KEY = 'sk_test_reactor_export_browser_01';
  const made = await bench.call('POST', '/reactors', { key: bench.managementKey, body: { name: 'Charge', code: CODE, configuration: { region: 'eu', API_KEY } } });
  expect(made.status).toBe(201);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToReactors(page);
  const reactors = reactorsPage(page);
  await reactors.list.getByRole('button', { name: 'Charge', exact: true }).click();

  const files = page.getByRole('region', { name: 'Proxies folder' });
  await files.getByRole('button', { name: 'Export to the proxies folder' }).click();
  await expect(files.getByRole('status')).toContainText('Exported to charge.reactor.js, charge.reactor.json: the reactor is the file\'s now, with the same id. Moved into Secrets: reactor-charge-api_key.');
  await expect(files).toContainText('Loaded from charge.reactor.json in the proxies folder');
  await expect(page.locator('body')).not.toContainText(API_KEY);
  // The same id reacts, now from the file, its secret put in from Secrets.
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  await reactors.args().fill(`{"card": "{{ ${card.body.id} }}", "amount": 3}`);
  await reactors.tryPanel.getByRole('button', { name: 'React' }).click();
  await expect(reactors.step('Code').getByRole('list', { name: /Log lines/ })).toContainText('log: charging 3 in eu card');

  const hosted = { id: '5b0f3a52-9c1e-4d2a-8e7f-0a1b2c3d4e5f', tenant_id: '11111111-2222-4333-8444-555555555555', name: 'Hosted card', code: CODE, configuration: { region: 'us' }, application: null, runtime: null, state: 'active', formula: null };
  const importing = files.getByRole('form', { name: "Import a reactor's JSON" });
  await importing.getByRole('textbox', { name: /Reactor JSON/ }).fill(JSON.stringify(hosted));
  await importing.getByRole('button', { name: 'Import into the folder' }).click();
  await expect(files.getByRole('status')).toContainText('Imported to hosted-card.reactor.js, hosted-card.reactor.json, with its id.');
  await expect(reactors.list.getByRole('button', { name: 'Hosted card', exact: true })).toBeVisible();
  expect(readdirSync(folder).sort()).toEqual(['charge.reactor.js', 'charge.reactor.json', 'hosted-card.reactor.js', 'hosted-card.reactor.json']);
  rmSync(folder, { recursive: true, force: true });
});
