import { expect, type Page } from '@playwright/test';

/** One section of the Settings page (Applications, Proxy, History, Secrets, …), a region named by its heading. */
export const settingsSection = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** Goes to Settings with its shortcut, as a keyboard user does, and waits for the page. */
export async function goToSettings(page: Page): Promise<void> {
  await page.keyboard.press('Control+5');
  await expect(page.getByRole('main', { name: 'Settings' })).toBeVisible();
}
