import { expect, type Page } from '@playwright/test';

/** The Transactions page as a user drives it: by role and accessible name. */
export function transactionsPage(page: Page) {
  const list = page.getByRole('region', { name: 'Transactions', exact: true });
  const detail = page.getByRole('region', { name: /^Transaction($| )/ });
  return {
    list,
    detail,
    rows: list.getByRole('row').filter({ has: page.getByRole('button') }),
    row: (id: string) => list.getByRole('row').filter({ has: page.getByRole('button', { name: id.slice(0, 8), exact: true }) }),
    open: (id: string) => list.getByRole('button', { name: id.slice(0, 8), exact: true }).click(),
    create: () => list.getByRole('button', { name: 'New transaction' }).click(),
    /** The id of the transaction the detail shows, once it shows one. */
    async shownId() {
      const heading = detail.getByRole('heading', { level: 2 });
      await expect(heading).toHaveText(/^Transaction [0-9a-f-]{36}$/);
      return (await heading.innerText()).replace(/^Transaction\s+/, '').trim();
    },
  };
}
