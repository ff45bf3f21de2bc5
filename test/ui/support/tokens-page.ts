import { expect, type Page } from '@playwright/test';

/** The Tokens page as a user drives it: by role and accessible name. */
export function tokensPage(page: Page) {
  const listPanel = page.getByRole('region', { name: 'Tokens', exact: true });
  const list = listPanel.getByRole('listbox', { name: 'Tokens' });
  const side = page.locator('.token-side');
  const searchBox = listPanel.getByRole('searchbox', { name: 'Search query' });
  return {
    listPanel,
    list,
    rows: list.getByRole('option'),
    /** The row of one token, by its id (rows are named by their cells). */
    row: (id: string) => list.getByRole('option', { name: new RegExp(id) }),
    side,
    summary: listPanel.getByRole('status', { name: 'Tokens found' }),
    actAs: (label: string) => listPanel.getByRole('combobox', { name: 'Act as' }).selectOption({ label }),
    writeIn: (label: string | RegExp) =>
      listPanel
        .getByRole('combobox', { name: 'Write' })
        .locator('option', { hasText: label })
        .evaluate((option: HTMLOptionElement) => option.value)
        .then((value) => listPanel.getByRole('combobox', { name: 'Write' }).selectOption(value)),
    async search(query: string) {
      await searchBox.fill(query);
      await searchBox.press('Enter');
    },
    filter: (name: 'Type' | 'Expiry' | 'Created in', label: string | RegExp) =>
      listPanel
        .getByRole('combobox', { name })
        .locator('option', { hasText: label })
        .first()
        .evaluate((option: HTMLOptionElement) => option.value)
        .then((value) => listPanel.getByRole('combobox', { name }).selectOption(value)),
    /** Opens a token from the list by clicking its row, and waits for its detail. */
    async open(id: string) {
      await list.getByRole('option', { name: new RegExp(id) }).click();
      await expect(side.getByRole('heading', { name: `Token ${id}` })).toBeVisible();
      await expect(side.getByRole('tab', { name: 'Fields' })).toBeVisible();
    },
    tab: (name: 'Fields' | 'Read as…' | 'Use' | 'Change') => side.getByRole('tab', { name }).click(),
    /** The token's data as the detail shows it, masked or revealed. */
    data: side.getByRole('region', { name: 'Data' }).locator('pre'),
    newToken: () => listPanel.getByRole('button', { name: 'New token' }).click(),
    form: page.getByRole('form', { name: 'New token' }),
    notice: side.getByRole('status').filter({ hasText: /^(Created|Found|Saved|Deleted|Converted)/ }),
  };
}
