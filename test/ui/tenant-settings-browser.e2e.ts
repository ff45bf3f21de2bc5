import { expect, test, type Page } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { goToSettings, settingsSection } from './support/settings-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** Settings' Tenant section in Chromium against a real engine: what GET and PUT /tenants/self and its usage report say. */
let bench: TestEngine;
const workbench = workbenchTests();

async function openTenant(page: Page, options: Parameters<typeof workbench.start>[0] = {}) {
  bench = await workbench.start(options);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToSettings(page);
  const section = settingsSection(page, 'Tenant');
  await section.scrollIntoViewIfNeeded();
  return section;
}

test('renames the tenant and changes its settings, which the API then answers and the vault applies', async ({ page }) => {
  const tenant = await openTenant(page);
  const form = tenant.getByRole('form', { name: 'Tenant' });
  await expect(form.getByRole('textbox', { name: 'Name' })).toHaveValue('Tokenbench');
  await expect(form.getByRole('checkbox', { name: 'Fingerprint every token' })).toBeChecked();
  await expect(form.getByRole('checkbox', { name: 'Deduplicate tokens' })).not.toBeChecked();

  await form.getByRole('textbox', { name: 'Name' }).fill('Checkout (dev)');
  await form.getByRole('checkbox', { name: 'Deduplicate tokens' }).check();
  await form.getByRole('combobox', { name: 'A duplicate create' }).selectOption({ label: 'updates the existing token with its data' });
  await form.getByRole('checkbox', { name: 'Refuse ephemeral proxy calls' }).check();
  await form.getByRole('button', { name: 'Save tenant' }).click();
  await expect(tenant.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();

  const read = await bench.call('GET', '/tenants/self', { key: bench.managementKey });
  expect(read.body).toMatchObject({
    name: 'Checkout (dev)',
    settings: { deduplicate_tokens: 'true', token_deduplication_behavior: 'update_existing', fingerprint_tokens: 'true', disable_ephemeral_proxy: 'true' },
  });
  const refused = await bench.call('POST', '/proxy', { key: bench.privateKey, headers: { 'BT-PROXY-URL': bench.engine.echoUrl! }, body: {} });
  expect(refused.status).toBe(403);

  // A name cleared is refused in place, with what to do; nothing is saved.
  await form.getByRole('textbox', { name: 'Name' }).fill('');
  await form.getByRole('button', { name: 'Save tenant' }).click();
  await expect(form.getByRole('alert')).toContainText('Give the tenant a name');
  workbench.forgive(/status of 400 \(Bad Request\)/);
  expect((await bench.call('GET', '/tenants/self', { key: bench.managementKey })).body.name).toBe('Checkout (dev)');
});

test('shows the usage report, counted again on demand', async ({ page }) => {
  const tenant = await openTenant(page);
  await expect(tenant.getByText('0 tokens in the vault; 0 active this month')).toBeVisible();
  await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: '4242424242424242' } });
  await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'x' } });
  await tenant.getByRole('button', { name: 'Count again' }).click();
  await expect(tenant.getByText('2 tokens in the vault; 2 active this month')).toBeVisible();
  const byType = tenant.getByRole('table', { name: 'Tokens by type' });
  await expect(byType.getByRole('row', { name: /card_number 1/ })).toBeVisible();
  await expect(byType.getByRole('row', { name: /token 1/ })).toBeVisible();
});

test('allows DELETE /tenants/self from Settings', async ({ page }) => {
  const tenant = await openTenant(page);
  const allow = tenant.getByRole('checkbox', { name: 'Allow deleting the tenant' });
  await expect(allow).not.toBeChecked();
  expect((await bench.call('DELETE', '/tenants/self', { key: bench.managementKey })).status).toBe(422);
  // A click, not check(): the box turns checked once the engine has taken the change, which check() does not wait for.
  await allow.click();
  await expect(tenant.getByRole('status').filter({ hasText: 'Allowed: DELETE /tenants/self now wipes the vault.' })).toBeVisible();
  await expect(allow).toBeChecked();
  expect((await bench.engine.workbench.getSettings({})).tenantDelete.allowTenantDelete.value).toBe(true);
});

test('says when a start flag decides whether the tenant may be deleted', async ({ page }) => {
  const pinned = await openTenant(page, { allowTenantDelete: true });
  await expect(pinned.getByRole('checkbox', { name: 'Allow deleting the tenant' })).toBeDisabled();
  await expect(pinned.getByText('Set by --allow-tenant-delete at start')).toBeVisible();
});
