import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { callMethod } from '../../electron/engine';
import type { SavedRequest } from '../../shared/workbench/collection-contract';
import type { TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { goToSettings, settingsSection } from './support/settings-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * Secrets in Chromium against a real engine: set, revealed for a while, replaced and deleted in Settings; a saved
 * request's credential moved into Secrets when it is saved, its file warned about until then; never a value on the
 * page but the one the user revealed.
 */
const STRIPE_KEY = 'sk_test_51HqSecretsBrowserValue0001';
const REPLACED = 'sk_test_51HqSecretsBrowserValue0002';
let bench: TestEngine;
const workbench = workbenchTests();

const REQUEST: SavedRequest = {
  kind: 'proxy',
  method: 'GET',
  target: 'https://api.stripe.com/v1/charges',
  headers: [{ name: 'Authorization', value: 'Bearer ${secret:stripe-test}', enabled: true }],
  service: { transaction: '', trace: '', keepAlive: '', connection: '' },
  bodyMode: 'none',
  body: '',
};

async function openSettings(page: Page) {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToSettings(page);
  return settingsSection(page, 'Secrets');
}

test('a secret is set, revealed for a while, replaced, and deleted after a confirmation naming its uses', async ({ page }) => {
  bench = await workbench.start();
  await callMethod(bench.engine.workbench, 'saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST });
  await page.clock.install();
  const secrets = await openSettings(page);
  await expect(secrets).toContainText('None yet.');

  const form = secrets.getByRole('form', { name: 'Set a secret' });
  await form.getByRole('textbox', { name: 'Name of the secret' }).fill('stripe-test');
  await form.getByLabel('Value of the secret').fill(STRIPE_KEY);
  await form.getByRole('button', { name: 'Set secret' }).click();
  await expect(form.getByRole('status')).toContainText('Set stripe-test');
  await expect(form.getByLabel('Value of the secret')).toHaveValue('');
  const row = secrets.getByRole('table', { name: 'Secrets' }).getByRole('row', { name: /stripe-test/ });
  await expect(row).toContainText('Payments/Charge');
  await expect(page.locator('body')).not.toContainText(STRIPE_KEY);

  // Reveal shows it, Hide hides it, and so does time.
  await row.getByRole('button', { name: 'Reveal stripe-test' }).click();
  const shown = secrets.getByRole('group', { name: 'Value of stripe-test' });
  await expect(shown).toContainText(STRIPE_KEY);
  await shown.getByRole('button', { name: 'Hide' }).click();
  await expect(page.locator('body')).not.toContainText(STRIPE_KEY);
  await row.getByRole('button', { name: 'Reveal stripe-test' }).click();
  await expect(shown).toContainText(/hides in \d+ s/);
  await page.clock.runFor(31_000);
  await expect(shown).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(STRIPE_KEY);

  await row.getByRole('button', { name: 'Replace stripe-test' }).click();
  const replace = secrets.getByRole('form', { name: 'Replace stripe-test' });
  await expect(replace.getByLabel('New value of stripe-test')).toBeFocused();
  await replace.getByLabel('New value of stripe-test').fill(REPLACED);
  await replace.getByRole('button', { name: 'Replace' }).click();
  await expect(replace).toHaveCount(0);
  expect(await callMethod(bench.engine.workbench, 'revealSecret', { name: 'stripe-test' })).toEqual({ value: REPLACED });

  await row.getByRole('button', { name: 'Delete stripe-test' }).click();
  const confirm = secrets.getByRole('alertdialog', { name: 'Delete stripe-test?' });
  await expect(confirm).toContainText('1 saved request refers to it (Payments/Charge)');
  await expect(confirm.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await confirm.getByRole('button', { name: 'Delete stripe-test' }).click();
  await expect(secrets).toContainText('None yet.');
  await expect(secrets.getByRole('status').filter({ hasText: 'Deleted secret stripe-test: Payments/Charge cannot be sent until a secret of that name is set again.' })).toBeVisible();

  // Each reveal and change is in History by the secret's name, never its value.
  await bench.engine.history.flush();
  const entries = (await bench.engine.history.list(100)).filter((entry) => entry.kind === 'workbench');
  expect(entries.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
    'DELETE /secrets/stripe-test',
    'REVEAL /secrets/stripe-test',
    'UPDATE /secrets/stripe-test',
    'REVEAL /secrets/stripe-test',
    'REVEAL /secrets/stripe-test',
    'CREATE /secrets/stripe-test',
    // The request that uses it, saved first.
    'SAVE /collections/Payments/Charge',
  ]);
  expect(JSON.stringify(entries)).not.toContain('sk_test_51Hq');
});

test('a saved file holding a key is warned about until it is saved again, which moves the key into Secrets', async ({ page }) => {
  bench = await workbench.start();
  const folder = join(bench.engine.collectionsFolder, 'From git');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'Teammate.request.json');
  writeFileSync(file, JSON.stringify({ ...REQUEST, target: `${bench.engine.echoUrl}/v1/me`, headers: [{ name: 'Authorization', value: `Bearer ${STRIPE_KEY}`, enabled: true }] }));
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  const saved = page.getByRole('region', { name: 'Saved requests' });
  const item = saved.getByRole('listitem').filter({ hasText: 'Teammate' });
  await expect(item).toContainText('Holds a secret in plain text (Authorization): save it again to move it to Secrets.');

  await item.getByRole('button', { name: 'GET Teammate' }).click();
  await saved.getByRole('button', { name: 'Save…' }).click();
  await saved.getByRole('form', { name: 'Save the request' }).getByRole('button', { name: 'Save' }).click();
  await expect(c.request.getByRole('status').filter({ hasText: 'Moved Authorization into Secrets' })).toContainText('from-git-teammate-authorization');
  await expect(item).not.toContainText('Holds a secret in plain text');
  expect(readFileSync(file, 'utf8')).not.toContain(STRIPE_KEY);
  await c.request.getByRole('tab', { name: /Headers/ }).click();
  await expect(c.request.getByRole('textbox', { name: 'Value of headers Authorization' })).toHaveValue('Bearer ${secret:from-git-teammate-authorization}');

  // Sent, the engine puts the key in; the echo destination's answer comes back with the reference in its place.
  await c.send();
  await c.expectOutcome('destination', /200/);
  expect(JSON.parse(await c.rawBody()).headers.authorization).toBe('Bearer ${secret:from-git-teammate-authorization}');
  await expect(page.locator('body')).not.toContainText(STRIPE_KEY);
});
