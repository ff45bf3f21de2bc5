import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { UI_DIR } from './support/paths';
import { openPage, openWorkbench } from './support/workbench-page';

/**
 * Collections a team shares: an environment chosen beside Send as puts its variables in (a request that refers to one
 * not set is flagged before sending), the folder is a path the user gives, and a Postman export comes in as a
 * collection and an environment, with what could not come listed.
 */
let bench: TestEngine;
test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});
test.afterEach(() => bench.stop());

/** The Saved requests panel, unfolded. */
async function savedRequests(page: import('@playwright/test').Page) {
  const saved = page.getByRole('region', { name: 'Saved requests' });
  const fold = saved.getByRole('button', { name: 'Saved requests ›' });
  if ((await fold.getAttribute('aria-expanded')) === 'false') await fold.click();
  return saved;
}

const checks = (page: import('@playwright/test').Page) => page.getByRole('region', { name: 'Checks before sending' });

test('the environment switcher puts its variables in; a variable no environment sets is flagged before sending', async ({ page }) => {
  await bench.engine.workbench.saveEnvironment({ name: 'staging', variables: [{ name: 'amount', value: '1200', secret: false }] });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body('{"amount": ${env:amount}}');

  const environment = c.request.getByRole('combobox', { name: 'Environment' });
  await expect(environment).toHaveValue('');
  await expect(checks(page)).toContainText('This request cannot be sent yet: 1 value it refers to is not set.');
  await expect(checks(page).getByRole('list', { name: 'Flags' })).toContainText('${env:amount} in the body cannot be put in');

  await environment.selectOption('staging');
  await expect(checks(page)).not.toContainText('cannot be sent yet');
  await c.send();
  await c.expectOutcome('destination', /200/);
  expect(JSON.parse(await c.rawBody()).body).toBe('{"amount": 1200}');

  // The choice is the engine's: a reload finds it again.
  await page.reload();
  await expect(c.request.getByRole('combobox', { name: 'Environment' })).toHaveValue('staging');
});

test('the folder field moves saved requests to a folder of the user’s, and says what to do with a path it refuses', async ({ page }) => {
  const repo = tempDir('tokenbench-repo-');
  mkdirSync(join(repo, 'From git'));
  const saved = { kind: 'api', method: 'GET', target: '/tokens', headers: [], service: { transaction: '', trace: '', keepAlive: '', connection: '' }, bodyMode: 'none', body: '' };
  writeFileSync(join(repo, 'From git', 'List tokens.request.json'), `${JSON.stringify(saved, null, 2)}\n`);

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Settings');
  const section = page.getByRole('region', { name: 'Saved requests folder' });
  const folder = section.getByRole('textbox', { name: 'Folder' });
  await folder.fill('requests');
  await section.getByRole('button', { name: 'Use this folder' }).click();
  await expect(section.getByRole('alert')).toContainText('“requests” is not a whole path: give the folder from the root');

  await folder.fill(repo);
  await folder.press('Enter');
  await expect(section.getByRole('status')).toHaveText(`Saved requests and environments are kept in ${repo} now.`);
  await expect(section.getByRole('button', { name: 'Back to the default' })).toBeVisible();

  await openPage(page, 'Composer');
  await expect((await savedRequests(page)).getByRole('button', { name: 'GET List tokens' })).toBeVisible();
});

const V21 = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';
const postmanCollection = (url: string) =>
  JSON.stringify({
    info: { name: 'Shop', schema: V21 },
    item: [
      {
        name: 'Charge',
        event: [{ listen: 'prerequest', script: { exec: ['pm.environment.set("ts", Date.now())'] } }],
        request: { method: 'POST', url, header: [{ key: 'Authorization', value: 'Bearer sk_live_postman_0042' }], body: { mode: 'raw', raw: '{"amount": {{amount}}}' } },
      },
      { name: 'Refund', request: { method: 'POST', url: '{{base_url}}/v1/refunds' } },
    ],
  });
const postmanEnvironment = JSON.stringify({
  name: 'Staging',
  values: [
    { key: 'base_url', value: 'https://api.example.com', enabled: true },
    { key: 'amount', value: '1200', enabled: true },
    { key: 'api_secret', value: 'sk_live_env_secret_0042', type: 'secret', enabled: true },
  ],
});

test('a Postman collection and its environment import as a collection and an environment, with what could not come listed', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await page.getByRole('region', { name: 'Saved requests' }).getByRole('button', { name: 'Import…' }).click();
  await page.getByRole('dialog', { name: 'Import a request' }).getByRole('radio', { name: 'Postman' }).check();
  const dialog = page.getByRole('dialog', { name: 'Import from Postman' });
  const collection = dialog.getByRole('textbox', { name: /^Collection/ });
  await expect(collection).toBeFocused();
  await dialog.getByRole('textbox', { name: /^Environment/ }).fill(postmanEnvironment);

  await collection.fill(postmanCollection('file:///etc/passwd'));
  await dialog.getByRole('button', { name: /^Import/ }).click();
  await expect(dialog.getByRole('alert')).toContainText('a file: address cannot be imported: the Composer sends http and https requests only');

  await collection.fill(postmanCollection('{{base_url}}/v1/charges'));
  await collection.press('Control+Enter');
  await expect(dialog.getByRole('status')).toHaveText('Imported 2 requests into “Shop”, and the environment “Staging” (3 variables, 1 kept in Secrets).');
  await expect(dialog).toContainText('Credentials moved into Secrets');
  await expect(dialog.getByRole('region', { name: 'Not carried over' })).toContainText('“Charge” (Shop): its pre-request script: Tokenbench runs no scripts.');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toHaveCount(0);

  const saved = await savedRequests(page);
  await expect(saved.getByRole('button', { name: 'POST Charge' })).toBeVisible();
  await expect(saved.getByRole('button', { name: 'POST Refund' })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Environment' }).getByRole('option', { name: 'Staging' })).toHaveCount(1);
});
