import { expect, type Page } from '@playwright/test';

/** The parts of the workbench every test reads, found as a user (and a screen reader) finds them. */

/** The live state in the status bar: connecting, live, disconnected or not connected. */
export const connectionState = (page: Page) => page.getByRole('status', { name: 'Connection' });

/** One fact of the status bar (API, Echo destination, Vault, Tokens, Applications), by its term. */
export const engineFact = (page: Page, term: string) =>
  page
    .getByRole('contentinfo', { name: 'Engine' })
    .locator('div', { has: page.getByRole('term').getByText(term, { exact: true }) })
    .getByRole('definition');

/** Opens the workbench at its printed URL, waits until it hears the engine, and goes to a page from the navigation. */
export async function openWorkbench(page: Page, url: string, title?: string): Promise<void> {
  await page.goto(url);
  await expect(connectionState(page)).toHaveText('live');
  if (title) await openPage(page, title);
}

/** Goes to a page as a user does: its link in the navigation. */
export async function openPage(page: Page, title: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title }).click();
  await expect(page.getByRole('main', { name: title })).toBeVisible();
}

/** Goes to a page with its shortcut (Ctrl and its digit), as a keyboard user does, and waits for the page. */
export async function goByShortcut(page: Page, digit: string, title: string): Promise<void> {
  await page.keyboard.press(`Control+${digit}`);
  await expect(page.getByRole('main', { name: title })).toBeVisible();
}
