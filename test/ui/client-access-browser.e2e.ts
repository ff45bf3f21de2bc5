import { expect, test, type Page } from '@playwright/test';
import { encryptLikeElements } from '../support/client-encryption';
import type { TestEngine } from '../support/test-engine';
import { goToSettings, settingsSection } from './support/settings-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * Client encryption keys and sessions in Settings, in Chromium against a real engine: a key made there shows its
 * public half once and that half works; keys and sessions that clients make appear by themselves; deleting and revoking
 * ask first; a session shows what it was granted and leaves as its time runs out, its key never on the page.
 */
let bench: TestEngine;
const workbench = workbenchTests();

async function openSettings(page: Page) {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToSettings(page);
}

test('a client encryption key is made with its public half shown once, listed, and deleted after a question', async ({ page }) => {
  bench = await workbench.start();
  await openSettings(page);
  const keys = settingsSection(page, 'Client encryption keys');
  await expect(keys).toContainText('None yet.');

  const form = keys.getByRole('form', { name: 'Make a client encryption key' });
  await form.getByRole('combobox', { name: 'Lives for' }).selectOption('30 days');
  await form.getByRole('button', { name: 'Make a key' }).click();
  const shown = keys.getByRole('group', { name: /^Public key of / });
  await expect(shown.getByLabel('Public key PEM')).toBeFocused();
  const pem = (await shown.getByLabel('Public key PEM').textContent())!;
  const keyId = (await shown.getAttribute('aria-label'))!.replace('Public key of ', '');
  await expect(shown).toContainText('cannot show this again');
  await expect(shown.getByRole('button', { name: 'Copy the public key' })).toBeVisible();

  // The half on the page is the one the engine decrypts with.
  const encrypted = await encryptLikeElements('4242424242424242', pem, keyId);
  expect((await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', encrypted } })).status).toBe(201);

  const table = keys.getByRole('table', { name: 'Client encryption keys' });
  const row = table.getByRole('row', { name: new RegExp(keyId) });
  await expect(row).toContainText('X25519');
  await expect(row).toContainText('Settings');
  const expires = Date.parse(((await bench.call('GET', `/keys/${keyId}`, { key: bench.managementKey })).body as { expires_at: string }).expires_at);
  expect(Math.round((expires - Date.now()) / 86_400_000)).toBe(30);

  // The how-to is filled in with the key just made; Done takes the public half off the page.
  await keys.getByText('How to encrypt a token request').click();
  await expect(keys.getByLabel('Encrypt snippet', { exact: true })).toContainText(`const keyId = "${keyId}"`);
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toHaveCount(0);
  await expect(form.getByRole('button', { name: 'Make a key' })).toBeFocused();
  await expect(page.locator('body')).not.toContainText(pem.split('\n')[1]!);

  // A client's key appears by itself, with the application that made it.
  const byClient = (await bench.call('POST', '/keys', { key: bench.managementKey })).body as { key_id: string };
  await expect(table.getByRole('row', { name: new RegExp(byClient.key_id) })).toBeVisible();

  await row.getByRole('button', { name: `Delete key ${keyId}` }).click();
  const confirm = page.getByRole('alertdialog', { name: `Delete key ${keyId}?` });
  await expect(confirm.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: `Delete key ${keyId}` }).click();
  await confirm.getByRole('button', { name: 'Delete key' }).click();
  await expect(row).toHaveCount(0);
  await expect(keys.getByRole('status').filter({ hasText: `Deleted client encryption key ${keyId}.` })).toBeVisible();
  expect((await bench.call('GET', `/keys/${keyId}`, { key: bench.managementKey })).status).toBe(404);
});

test('a session appears when a front end makes it, shows its grant and countdown, and is revoked or runs out', async ({ page }) => {
  bench = await workbench.start();
  const front = (await bench.call('POST', '/applications', { key: bench.managementKey, body: { name: 'Checkout page', type: 'public', permissions: ['token:create'] } })).body as { key: string };
  await page.clock.install();
  await openSettings(page);
  const sessions = settingsSection(page, 'Sessions');
  await expect(sessions).toContainText('None alive.');

  const made = async () => (await bench.call('POST', '/sessions', { key: front.key })).body as { session_key: string; nonce: string };
  const first = await made();
  const table = sessions.getByRole('table', { name: 'Sessions' });
  const row = table.getByRole('row', { name: /Checkout page/ });
  await expect(row).toContainText('Waiting for authorization');
  await expect(row).toContainText(/[23]:\d\d/);

  // As the vendor's sessions guide grants one token: a rule naming it rather than a container.
  const rules = [{ priority: 1, conditions: [{ attribute: 'id', operator: 'equals', value: 'order-1234' }], transform: 'reveal', permissions: ['token:read'] }];
  const authorized = await bench.call('POST', '/sessions/authorize', { key: bench.privateKey, body: { nonce: first.nonce, permissions: ['token:create'], rules } });
  expect(authorized.status, JSON.stringify(authorized.body)).toBe(204);
  await expect(row).toContainText('Authorized by Tokenbench backend');
  await expect(row).toContainText('token:create');
  await expect(row).toContainText('token order-1234 reveal: token:read');
  const text = (await page.locator('body').textContent())!;
  expect(text).not.toContain(first.session_key);
  expect(text).not.toContain(first.nonce);

  await row.getByRole('button', { name: 'Revoke the session of Checkout page' }).click();
  await page.getByRole('alertdialog', { name: 'Revoke the session of Checkout page?' }).getByRole('button', { name: 'Revoke session' }).click();
  await expect(sessions).toContainText('None alive.');
  expect((await bench.call('GET', '/tokens', { key: first.session_key })).status).toBe(401);

  // One nobody authorizes leaves by itself when its three minutes are up.
  await made();
  await expect(row).toContainText('Waiting for authorization');
  await page.clock.runFor(181_000);
  await expect(sessions).toContainText('None alive.');
});
