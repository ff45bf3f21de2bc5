import { expect, test } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { connectionState, engineFact } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** A new vault's welcome view in the browser workbench: the endpoint and the two first keys, once, with copy. */
let bench: TestEngine;
const workbench = workbenchTests();

test('a fresh vault shows its endpoint and first keys once; they work, and a reload shows them no more', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  bench = await workbench.start({ keepWelcome: true });
  await page.goto(bench.engine.browserWorkbench!.url);
  const welcome = page.getByRole('dialog', { name: 'Welcome to Tokenbench' });
  await expect(welcome).toBeVisible();
  await expect(connectionState(page)).toHaveText('live');
  // Opened with the way out focused: the keys are read, copied and then confirmed, all from the keyboard.
  await expect(welcome.getByRole('button', { name: 'I have saved the keys' })).toBeFocused();
  await expect(welcome).toContainText(bench.url);
  await expect(welcome).toContainText(bench.engine.echoUrl!);

  const management = welcome.getByRole('group', { name: 'Management key of “Tokenbench management”' });
  const backend = welcome.getByRole('group', { name: 'Private key of “Tokenbench backend”' });
  await expect(management).toContainText(bench.managementKey);
  await expect(backend).toContainText(bench.privateKey);
  await backend.getByRole('button', { name: 'Copy private key of “Tokenbench backend”' }).click();
  await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(bench.privateKey);
  expect((await bench.call('GET', '/applications', { key: bench.managementKey })).status).toBe(200);

  // A stray Escape does not lose the keys.
  await page.keyboard.press('Escape');
  await expect(welcome).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(welcome.getByRole('button', { name: 'I have saved the keys' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(welcome).toHaveCount(0);
  await expect(page.getByText(bench.privateKey)).toHaveCount(0);

  await page.reload();
  await expect(connectionState(page)).toHaveText('live');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('wiping the vault from Settings empties it, and the new vault shows its new keys', async ({ page }) => {
  bench = await workbench.start();
  const oldKey = bench.privateKey;
  await bench.call('POST', '/tokens', { key: oldKey, body: { type: 'token', data: 'to be wiped' } });
  await bench.call('POST', '/transactions', { key: oldKey });
  await bench.call('POST', '/keys', { key: bench.managementKey });
  await page.goto(bench.engine.browserWorkbench!.url);
  await expect(connectionState(page)).toHaveText('live');
  await page.keyboard.press('Control+5');
  const danger = page.getByRole('region', { name: 'Danger zone' });
  await expect(danger).toContainText('The vault holds 1 token, 1 transaction (1 open) and 2 applications.');
  // A client opens another while the page is open: the count follows.
  await bench.call('POST', '/transactions', { key: oldKey });
  await expect(danger).toContainText('The vault holds 1 token, 2 transactions (2 open) and 2 applications.');
  // Asked in a dialog that says what goes and what stays, the word typed before it acts.
  await danger.getByRole('button', { name: 'Wipe the vault…' }).click();
  const question = page.getByRole('alertdialog', { name: 'Wipe the vault?' });
  await expect(question).toContainText('There is no undo.');
  await expect(question.getByRole('button', { name: 'Keep the vault' })).toBeFocused();
  const wipe = question.getByRole('button', { name: 'Wipe the vault', exact: true });
  await expect(wipe).toBeDisabled();
  await question.getByRole('textbox', { name: 'Type wipe to confirm' }).fill('wip');
  await expect(wipe).toBeDisabled();
  await question.getByRole('textbox', { name: 'Type wipe to confirm' }).fill('wipe');
  await wipe.click();

  const welcome = page.getByRole('dialog', { name: 'Welcome to Tokenbench' });
  await expect(welcome).toBeVisible();
  const newKey = (await welcome.getByRole('group', { name: /^Private key/ }).locator('code').innerText()).trim();
  expect(newKey).not.toBe(oldKey);
  await welcome.getByRole('button', { name: 'I have saved the keys' }).click();
  await expect(danger.getByRole('status').filter({ hasText: 'Wiped: 1 token, 2 transactions and 2 applications are gone.' })).toBeVisible();
  await expect(danger).toContainText('The vault holds 0 tokens, 0 transactions (0 open) and 2 applications.');
  await expect(engineFact(page, 'Tokens')).toHaveText('0');
  await expect(page.getByRole('region', { name: 'Client encryption keys' })).toContainText('None yet.');
  expect((await bench.call('GET', '/applications/key', { key: oldKey })).status).toBe(401);
  expect((await bench.call('GET', '/applications/key', { key: newKey })).body.name).toBe('Tokenbench backend');
});
