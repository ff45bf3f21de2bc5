import { expect, test, type Locator, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { focusStop, tabRound } from './support/focus';
import { fillEngine, PAGE_TITLES, showPage } from './support/layout';
import { UI_DIR } from './support/paths';
import { openWorkbench } from './support/workbench-page';

/**
 * Keyboard-first: on every page, Tab reaches each control in turn, and wherever the focus lands it can be seen (a
 * 2 px outline on the control, on the label that stands for a hidden input, or around the code editor it is in).
 */
let bench: TestEngine;
test.beforeAll(async () => {
  bench = await startTestEngine({ echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
  await fillEngine(bench);
});
test.afterAll(() => bench.stop());

for (const [at, title] of PAGE_TITLES.entries()) {
  test(`every stop Tab reaches on ${title} shows where the focus is`, async ({ page }) => {
    await openWorkbench(page, bench.engine.browserWorkbench!.url);
    await page.keyboard.press(`Control+${at + 1}`);
    await expect(page.getByRole('main', { name: title })).toBeVisible();
    // One of the page's items open, as a user at work has it (the Composer's answer is not needed here).
    if (title !== 'Composer') await showPage(page, title);
    const { seen, unseen, again } = await tabRound(page);
    expect(seen.length, 'Tab reached the page').toBeGreaterThan(5);
    // Round the whole page and back to the first stop: no control keeps the focus to itself.
    expect(again?.key, `Tab came back to ${again?.name ?? 'nothing'} instead of the first stop`).toBe(seen[0].key);
    expect(unseen, 'focus stops nobody can see').toEqual([]);
  });
}

/**
 * A confirmation opened from the keyboard: the safe choice has the focus, seen; Tab goes round the dialog's controls
 * only, each seen; Escape closes it and gives the focus back to what opened it.
 */
async function confirmByKeyboard(page: Page, opener: Locator, name: string, safe: string): Promise<void> {
  await opener.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('alertdialog', { name });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: safe })).toBeFocused();
  expect((await focusStop(page))?.indicated, `the focus on “${safe}” is seen`).toBe(true);
  const { seen, unseen, again } = await tabRound(page, 20);
  expect(seen.filter((stop) => !stop.inDialog).map((stop) => stop.name), `Tab left the dialog “${name}”`).toEqual([]);
  expect(again, `Tab went round the dialog “${name}”`).not.toBeNull();
  expect(unseen, `focus stops nobody can see in “${name}”`).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();
  expect((await focusStop(page))?.indicated, 'the focus back on the opener is seen').toBe(true);
}

test('each confirmation in Settings and the Composer is answered by keyboard, its focus seen, and Escape gives the focus back', async ({ page }) => {
  await bench.engine.workbench.addRemoteTarget({ name: 'itself', base_url: bench.url, api_key: bench.privateKey });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await page.keyboard.press('Control+5');
  const settings = page.getByRole('main', { name: 'Settings' });
  await expect(settings).toBeVisible();
  await settings.getByRole('button', { name: 'Tokenbench backend' }).focus();
  await page.keyboard.press('Enter');
  const editor = settings.getByRole('region', { name: 'Tokenbench backend · private' });
  const ending = `…${bench.privateKey.slice(-4)}`;
  await confirmByKeyboard(page, editor.getByRole('button', { name: `Revoke key ${ending}` }), `Revoke key ${ending} of “Tokenbench backend”?`, 'Keep it');
  await confirmByKeyboard(page, editor.getByRole('button', { name: 'Delete application…' }), 'Delete application “Tokenbench backend”?', 'Keep it');
  await confirmByKeyboard(page, settings.getByRole('button', { name: 'Clear history…' }), 'Clear the whole history?', 'Keep it');
  await confirmByKeyboard(page, settings.getByRole('button', { name: 'Wipe the vault…' }), 'Wipe the vault?', 'Keep the vault');
  expect((await bench.call('GET', '/applications/key', { key: bench.privateKey })).status).toBe(200);

  await page.keyboard.press('Control+1');
  const targets = page.getByRole('group', { name: /^Remote targets/ });
  await targets.getByText('Remote targets').focus();
  await page.keyboard.press('Enter');
  await confirmByKeyboard(page, targets.getByRole('button', { name: 'Delete itself' }), 'Delete remote target “itself”?', 'Keep it');
  expect((await bench.engine.workbench.listRemoteTargets({})).map((target) => target.name)).toEqual(['itself']);
});
