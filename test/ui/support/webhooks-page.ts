import { expect, type Page } from '@playwright/test';
import { goByShortcut } from './workbench-page';

/** Goes to Webhooks with its shortcut, as a keyboard user does, and waits for the page. */
export const goToWebhooks = (page: Page) => goByShortcut(page, '8', 'Webhooks');

/** The Webhooks page as a user drives it: by role and accessible name. */
export function webhooksPage(page: Page) {
  const editor = page.getByRole('form', { name: /^(New webhook|Webhook “.*”)$/ });
  const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
  return {
    list: page.getByRole('region', { name: 'Webhooks', exact: true }),
    editor,
    deliveries,
    /** The rows of the deliveries table, newest first. */
    rows: () => deliveries.getByRole('table').getByRole('row').filter({ has: page.getByRole('cell') }),
    /** Fills in a new webhook's form and creates it. */
    async create(name: string, url: string) {
      await editor.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
      await editor.getByRole('textbox', { name: 'URL', exact: true }).fill(url);
      await editor.getByRole('button', { name: /Create webhook/ }).click();
    },
    /** Waits for the page to say what a save, delete or delivery did. */
    said: (sentence: string | RegExp) => expect(page.getByRole('status').filter({ hasText: sentence })).toBeVisible(),
  };
}
