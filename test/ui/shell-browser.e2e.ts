import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { connectionState, engineFact, openWorkbench } from './support/workbench-page';

/** The workbench's shell in Chromium against a real engine: navigation, shortcuts, the address, the theme. */
let bench: TestEngine;

test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});

test.afterEach(async () => {
  await bench.stop();
});

const pagesNav = (page: import('@playwright/test').Page) => page.getByRole('navigation', { name: 'Pages' });

test('opens on the Composer, names the page in the address, and a reload keeps the page', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await expect(pagesNav(page).getByRole('link', { name: 'Composer' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  expect(new URL(page.url()).hash).toBe('#/composer');
  await expect(page).toHaveTitle('Composer · Tokenbench');

  await pagesNav(page).getByRole('link', { name: 'History' }).click();
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
  await page.reload();
  await expect(connectionState(page)).toHaveText('live');
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
  expect(new URL(page.url()).hash).toBe('#/history');

  // Ctrl+1 and Ctrl+4 move between them from anywhere, the Composer's editor included.
  await page.keyboard.press('Control+1');
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  await page.getByRole('textbox', { name: 'Request body' }).click();
  await page.keyboard.press('Control+4');
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
});

test('an address naming no page says so; the navigation and Ctrl+4 reach History from there', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await page.goto(`${bench.url}/ui/#/composer-from-an-old-bookmark`);
  await expect(page.getByRole('heading', { name: 'No page “composer-from-an-old-bookmark”' })).toBeVisible();
  await expect(pagesNav(page).getByRole('link', { name: 'History' })).not.toHaveAttribute('aria-current', 'page');

  await page.keyboard.press('Control+4');
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
  expect(new URL(page.url()).hash).toBe('#/history');

  await page.goto(`${bench.url}/ui/#/nowhere`);
  await expect(page.getByRole('main', { name: 'No such page' })).toBeVisible();
  await pagesNav(page).getByRole('link', { name: 'History' }).click();
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
  // The browser's Back goes to the page before, as a user expects of an address.
  await page.goBack();
  await expect(page.getByRole('main', { name: 'No such page' })).toBeVisible();
});

test('the status bar shows where the engine runs and what its vault holds', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await expect(engineFact(page, 'API')).toHaveText(bench.url);
  await expect(engineFact(page, 'Echo destination')).toHaveText(bench.engine.echoUrl!);
  await expect(engineFact(page, 'Vault')).toHaveText('in memory (nothing is kept)');
  await expect(engineFact(page, 'Applications')).toHaveText('2');
});

test('the theme follows the system until the user picks one, and the pick is remembered across a reload', async ({ page }) => {
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: 'dark' });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const switcher = page.getByRole('group', { name: 'Theme' });
  await expect(switcher.getByRole('radio', { name: 'System' })).toBeChecked();
  expect(await theme()).toBe('dark');
  const dark = await background();
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(theme).toBe('light');
  expect(await background()).not.toBe(dark);

  await switcher.getByRole('radio', { name: 'Dark' }).check();
  await expect.poll(theme).toBe('dark');
  expect(await background()).toBe(dark);

  await page.reload();
  await expect(connectionState(page)).toHaveText('live');
  await expect(page.getByRole('group', { name: 'Theme' }).getByRole('radio', { name: 'Dark' })).toBeChecked();
  // The system says light; the remembered pick wins.
  expect(await theme()).toBe('dark');
});

test('the divider between the request list and the request moves with the keyboard, and keeps its place across a reload', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const divider = page.getByRole('separator', { name: 'Resize the request list' });
  await expect(divider).toHaveAttribute('aria-valuenow', '50');
  const listWidth = () => page.getByRole('region', { name: 'Requests' }).evaluate((element) => element.getBoundingClientRect().width);
  const before = await listWidth();
  await divider.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(divider).toHaveAttribute('aria-valuenow', '60');
  expect(await listWidth()).toBeGreaterThan(before);
  await page.keyboard.press('End');
  await expect(divider).toHaveAttribute('aria-valuenow', '80');

  await page.reload();
  await expect(connectionState(page)).toHaveText('live');
  await expect(page.getByRole('separator', { name: 'Resize the request list' })).toHaveAttribute('aria-valuenow', '80');
});
