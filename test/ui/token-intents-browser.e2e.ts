import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { goToSettings, settingsSection } from './support/settings-page';
import { tokensPage } from './support/tokens-page';
import { openWorkbench } from './support/workbench-page';

/** Token intents on the Tokens page, in Chromium against a real engine: listed live with their countdown, created, converted and deleted. */
const CARD = { number: '4242424242424242', expiration_month: 12, expiration_year: 2040, cvc: '123' };
let bench: TestEngine;
let problems: string[];
/** A browser's key: a public application that may only create intents. */
let checkoutKey: string;

test.beforeEach(async ({ page }) => {
  problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) problems.push(message.text());
  });
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
  checkoutKey = await application({ name: 'checkout', type: 'public', permissions: ['token-intent:create'] });
  await application({
    name: 'orders',
    type: 'private',
    permissions: ['token:create', 'token:read', 'token:update', 'token:search', 'token-intent:create', 'token-intent:read', 'token-intent:delete'],
  });
});

test.afterEach(async () => {
  const seen = [...problems];
  await bench.stop();
  expect(seen).toEqual([]);
});

async function application(body: Record<string, unknown>): Promise<string> {
  const created = await bench.call('POST', '/applications', { key: bench.managementKey, body });
  expect(created.status, created.text).toBe(201);
  return created.body.key as string;
}

async function apiIntent(type: string, data: unknown): Promise<string> {
  const created = await bench.call('POST', '/token-intents', { key: checkoutKey, body: { type, data } });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

async function openIntents(page: Page) {
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Tokens');
  const t = tokensPage(page);
  await t.listPanel.getByRole('tab', { name: /^Intents/ }).click();
  const list = t.listPanel.getByRole('list', { name: 'Token intents' });
  return { ...t, intents: list, intent: (id: string) => list.getByRole('listitem').filter({ hasText: id.slice(0, 8) }) };
}

test('lists the live intents with their card or bank details, creator and a countdown, and follows them live', async ({ page }) => {
  const card = await apiIntent('card', CARD);
  const t = await openIntents(page);
  const row = t.intent(card);
  await expect(row).toContainText('card');
  await expect(row).toContainText('visa');
  await expect(row).toContainText('4242');
  await expect(row).toContainText('12/2040');
  await expect(row).toContainText('checkout');
  // Never the data: neither the whole number nor the CVC reaches the page.
  await expect(page.locator('body')).not.toContainText(CARD.number);
  const countdown = row.getByRole('timer');
  await expect(countdown).toHaveText(/^23:59:\d\d left$/);
  const first = await countdown.innerText();
  await expect(countdown).not.toHaveText(first, { timeout: 3000 });

  // Created elsewhere while the page is open: listed without a reload.
  const bank = await apiIntent('bank', { routing_number: '021000021', account_number: '123456789012' });
  await expect(t.intent(bank)).toContainText('021000021');
  await expect(t.intent(bank)).toContainText('9012');
  await expect(t.listPanel.getByRole('tab', { name: /^Intents/ })).toHaveText(/2/);

  // Converted by a back end: it leaves the list by itself.
  const converted = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { token_intent_id: card } });
  expect(converted.status, converted.text).toBe(201);
  await expect(t.intent(card)).toHaveCount(0);
  await expect(t.intent(bank)).toHaveCount(1);
});

test('an intent leaves the list when its countdown runs out, with the time to live set in Settings', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToSettings(page);
  const section = settingsSection(page, 'Token intents');
  await expect(section.getByRole('spinbutton', { name: 'Time to live' })).toHaveValue('86400');
  await section.getByRole('spinbutton', { name: 'Time to live' }).fill('5');
  await section.getByRole('button', { name: 'Apply' }).click();
  await expect(section.getByRole('status').filter({ hasText: 'Applied' })).toBeVisible();
  await expect(section).toContainText('5 seconds after');

  await page.keyboard.press('Control+2');
  const t = tokensPage(page);
  await t.listPanel.getByRole('tab', { name: /^Intents/ }).click();
  await expect(t.listPanel).toContainText('No live token intent');
  const id = await apiIntent('card', CARD);
  const row = t.listPanel.getByRole('list', { name: 'Token intents' }).getByRole('listitem').filter({ hasText: id.slice(0, 8) });
  await expect(row.getByRole('timer')).toHaveText(/^0:0\d left$/);
  await expect(row).toHaveCount(0, { timeout: 8000 });
  await expect(t.listPanel).toContainText('No live token intent');
});

test('creates an intent from the page, converts one into a token with containers, metadata and deduplication, and deletes one after asking', async ({ page }) => {
  test.setTimeout(60_000);
  const t = await openIntents(page);
  await t.actAs('orders · private');
  const create = async () => {
    await t.listPanel.getByRole('button', { name: 'New intent' }).click();
    const form = page.getByRole('form', { name: 'New token intent' });
    await form.getByRole('textbox', { name: 'Card number' }).fill(CARD.number);
    await form.getByRole('textbox', { name: 'Expiration month' }).fill('12');
    await form.getByRole('textbox', { name: 'Expiration year' }).fill('2040');
    await form.getByRole('textbox', { name: 'CVC' }).fill('123');
    await form.getByRole('button', { name: 'Create intent' }).click();
    await expect(t.notice).toContainText('Created token intent');
    const id = (await t.notice.innerText()).match(/Created token intent (\S+)\./)![1];
    await expect(t.side.getByRole('heading', { name: `Token intent ${id}` })).toBeVisible();
    await expect(t.intent(id)).toBeVisible();
    return id;
  };

  // Converted into a token with its own container and metadata: the intent goes, the token is listed.
  const first = await create();
  await expect(t.side.getByRole('definition').filter({ hasText: 'BIN' })).toContainText('visa');
  const convert = t.side.getByRole('form', { name: 'Convert into a token' });
  await convert.getByRole('textbox', { name: 'Containers' }).fill('/pci/low/');
  await convert.getByRole('textbox', { name: 'Key of new metadata entry' }).fill('order');
  await convert.getByRole('textbox', { name: 'Value of metadata order' }).fill('o-1');
  await convert.getByRole('button', { name: 'Convert into a token' }).click();
  await expect(t.notice).toContainText(`Converted token intent ${first} into token`);
  const token = (await t.notice.innerText()).match(/into token (\S+)\./)![1];
  await expect(t.side.getByRole('heading', { name: `Token ${token}` })).toBeVisible();
  await expect(t.intent(first)).toHaveCount(0);
  await t.listPanel.getByRole('tab', { name: 'Tokens' }).click();
  await expect(t.row(token)).toContainText('order=o-1');

  // The same card again, deduplicated: the existing token in that container is answered.
  await t.listPanel.getByRole('tab', { name: /^Intents/ }).click();
  const second = await create();
  await convert.getByRole('textbox', { name: 'Containers' }).fill('/pci/low/');
  await convert.getByRole('checkbox', { name: /^Deduplicate/ }).check();
  await convert.getByRole('button', { name: 'Convert into a token' }).click();
  await expect(t.notice).toContainText(`Converted token intent ${second} into the existing token ${token}`);

  // Deleting asks first; keeping it changes nothing.
  const third = await create();
  await t.side.getByRole('button', { name: 'Delete intent' }).click();
  const dialog = page.getByRole('alertdialog', { name: /^Delete token intent/ });
  await dialog.getByRole('button', { name: 'Keep it' }).click();
  await expect(t.intent(third)).toBeVisible();
  await t.side.getByRole('button', { name: 'Delete intent' }).click();
  await dialog.getByRole('button', { name: 'Delete intent' }).click();
  await expect(t.notice).toContainText(`Deleted token intent ${third}.`);
  await expect(t.intent(third)).toHaveCount(0);
  const gone = await bench.call('GET', `/token-intents/${third}`, { key: bench.privateKey });
  expect(gone.status).not.toBe(200);
});

test('says what to do when the application acted as may not create intents', async ({ page }) => {
  await application({ name: 'reader', type: 'private', permissions: ['token:read'] });
  const t = await openIntents(page);
  await t.actAs('reader · private');
  await t.listPanel.getByRole('button', { name: 'New intent' }).click();
  const form = page.getByRole('form', { name: 'New token intent' });
  await form.getByRole('button', { name: 'Generate test data' }).click();
  await form.getByRole('button', { name: 'Create intent' }).click();
  await expect(form.getByRole('alert')).toContainText('token-intent:create');
  await expect(form.getByRole('alert')).toContainText('Act as an application that holds it');
});

test('a conversion inside a transaction holds the intent, and its rollback lists it again', async ({ page }) => {
  const id = await apiIntent('card', CARD);
  const t = await openIntents(page);
  const transaction = (await bench.call('POST', '/transactions', { key: bench.privateKey })).body.id as string;
  await t.writeIn(transaction.slice(0, 8));
  // Opened from the keyboard: the row's button and Enter.
  await t.intents.getByRole('button', { name: `Open token intent ${id}` }).focus();
  await page.keyboard.press('Enter');
  await t.side.getByRole('form', { name: 'Convert into a token' }).getByRole('button', { name: 'Convert into a token' }).click();
  await expect(t.notice).toContainText(`Converted token intent ${id} into token`);
  await expect(t.notice).toContainText(`staged in transaction ${transaction.slice(0, 8)}`);
  await expect(t.intent(id)).toHaveCount(0);

  const rolledBack = await bench.call('POST', `/transactions/${transaction}/rollback`, { key: bench.privateKey });
  expect(rolledBack.status, rolledBack.text).toBeLessThan(300);
  await expect(t.intent(id)).toBeVisible();
});
