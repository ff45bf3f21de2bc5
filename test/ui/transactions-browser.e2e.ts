import { expect, test } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { tokensPage } from './support/tokens-page';
import { transactionsPage } from './support/transactions-page';
import { workbenchTests } from './support/workbench-tests';
import { engineFact, openPage, openWorkbench } from './support/workbench-page';

/** The Transactions page in Chromium against a real engine: the BETA transactions, created, watched and ended live. */
const PAN = '4242424242424242';
let bench: TestEngine;
const workbench = workbenchTests();

async function startBench(options: Parameters<typeof workbench.start>[0] = {}) {
  bench = await workbench.start(options);
}

test('create one, stage a token from the Composer and from an outside client, watch the detail, commit, see the token appear', async ({ page, context }) => {
  await startBench();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await page.keyboard.press('Control+3');
  await expect(page.getByRole('main', { name: 'Transactions' })).toBeVisible();
  const tx = transactionsPage(page);
  await expect(tx.list).toContainText('A transaction lasts 1 hour (serve --transaction-ttl); then Tokenbench rolls it back, and a commit after that answers 409.');

  await tx.create();
  await expect(tx.detail.getByText('open', { exact: true })).toBeVisible();
  const id = await tx.shownId();
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await expect(tx.detail).toContainText('Tokenbench backend');
  await expect(tx.row(id)).toContainText(/\d+:\d\d:\d\d/);

  // The header line, copied as a client sends it.
  await tx.detail.getByRole('button', { name: 'Copy the header line' }).click();
  await expect(tx.detail.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`BT-TRANSACTION-ID: ${id}`);

  // Use in Composer: the Composer's request now carries the header, and its write is staged, not applied.
  await tx.detail.getByRole('link', { name: 'Use in Composer' }).click();
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  const c = composer(page);
  await c.kind('Vault API');
  await c.method('POST');
  await c.path('/tokens');
  await c.body(JSON.stringify({ type: 'card_number', data: PAN }));
  await c.request.getByRole('tab', { name: 'Service headers' }).click();
  await expect(c.request.getByRole('textbox', { name: /Transaction/ })).toHaveValue(id);
  await c.send();
  await expect(c.outcome).toContainText('201');
  const staged = JSON.parse(await c.rawBody()).id as string;
  await expect(engineFact(page, 'Tokens')).toHaveText('0');

  // An outside client enlists too; the detail shows both writes, by whom, the locks and what a commit would show.
  const outside = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'outside' }, headers: { 'BT-TRANSACTION-ID': id } });
  expect(outside.status).toBe(201);
  await openPage(page, 'Transactions');
  const operations = tx.detail.getByRole('table', { name: 'Operations' });
  await expect(operations.getByRole('row')).toHaveCount(3);
  await expect(operations.getByRole('row').nth(1)).toContainText(`create${staged}Tokenbench backend`);
  await expect(operations.getByRole('row').nth(1)).toContainText('XXXXXXXXXXXX4242');
  await expect(operations.getByRole('row').nth(2)).toContainText(outside.body.id);
  await expect(tx.detail.getByRole('list', { name: 'Locks held' })).toContainText(`${staged} id reserved`);
  await expect(tx.detail.getByRole('list', { name: 'What a commit would make visible' })).toContainText(`${staged} appears XXXXXXXXXXXX4242`);
  await expect(page.getByRole('main', { name: 'Transactions' })).not.toContainText(PAN);

  await tx.detail.getByRole('button', { name: 'Commit' }).click();
  await expect(tx.detail.getByText('committed', { exact: true }).first()).toBeVisible();
  await expect(tx.row(id)).toContainText('committed');
  await expect(engineFact(page, 'Tokens')).toHaveText('2');
  expect((await bench.call('GET', `/tokens/${staged}`, { key: bench.privateKey })).status).toBe(200);
  // Ended: nothing held, the actions gone.
  await expect(tx.detail.getByRole('button', { name: 'Commit' })).toHaveCount(0);
  await expect(tx.detail.getByRole('list', { name: 'Locks held' })).toHaveCount(0);
});

test('stage a token from the Tokens page inside a transaction made here, watch it in the detail, commit, and see it appear', async ({ page }) => {
  await startBench();
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Transactions');
  const tx = transactionsPage(page);
  await tx.create();
  const id = await tx.shownId();

  await page.keyboard.press('Control+2');
  const t = tokensPage(page);
  await t.writeIn(id.slice(0, 8));
  await t.newToken();
  await t.form.getByRole('combobox', { name: 'Type' }).selectOption('card_number');
  await t.form.getByRole('textbox', { name: 'Card number' }).fill(PAN);
  await t.form.getByRole('button', { name: 'Create token' }).click();
  await expect(t.notice).toContainText(`staged in transaction ${id.slice(0, 8)} until it commits`);
  const staged = (await t.notice.innerText()).match(/Created token (\S+),/)![1];
  await expect(t.summary).toContainText('0 tokens · 1 write staged in open transactions');

  // The detail shows the staged write, by the application the Tokens page acted as, and what a commit would show.
  await page.keyboard.press('Control+3');
  const operations = tx.detail.getByRole('table', { name: 'Operations' });
  await expect(operations.getByRole('row')).toHaveCount(2);
  await expect(operations.getByRole('row').nth(1)).toContainText(`create${staged}Tokenbench backend`);
  await expect(tx.detail.getByRole('list', { name: 'What a commit would make visible' })).toContainText(`${staged} appears XXXXXXXXXXXX4242`);
  expect((await bench.call('GET', `/tokens/${staged}`, { key: bench.privateKey })).status).toBe(404);

  await tx.detail.getByRole('button', { name: 'Commit' }).click();
  await expect(tx.row(id)).toContainText('committed');
  await page.keyboard.press('Control+2');
  await expect(t.summary).toHaveText('1 token');
  await expect(t.row(staged)).not.toContainText('staged');
  expect((await bench.call('GET', `/tokens/${staged}`, { key: bench.privateKey })).status).toBe(200);
  await expect(page.getByRole('main', { name: 'Tokens' })).not.toContainText(PAN);
});

test('roll one back, commit another, and filter the list by state', async ({ page }) => {
  await startBench();
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Transactions');
  const tx = transactionsPage(page);

  await tx.create();
  const first = await tx.shownId();
  await tx.detail.getByRole('button', { name: 'Roll back' }).click();
  await expect(tx.row(first)).toContainText('rolled back');
  expect((await bench.call('POST', `/transactions/${first}/commit`, { key: bench.privateKey })).status).toBe(409);

  await tx.create();
  await expect.poll(() => tx.shownId()).not.toBe(first);
  const second = await tx.shownId();
  await tx.detail.getByRole('button', { name: 'Commit' }).click();
  await expect(tx.row(second)).toContainText('committed');
  await tx.create();
  await expect.poll(() => tx.shownId()).not.toBe(second);

  await expect(tx.rows).toHaveCount(3);
  const show = (label: string) => tx.list.getByRole('combobox', { name: 'Show' }).selectOption({ label });
  await show('rolled back');
  await expect(tx.rows).toHaveCount(1);
  await expect(tx.rows).toContainText(first.slice(0, 8));
  await expect(tx.list).toContainText('1 of 3');
  await show('expired');
  await expect(tx.list).toContainText('No transaction is expired.');
  await show('All states');
  await expect(tx.rows).toHaveCount(3);
});

test('with more than a page kept, the list loads older ones from the keyboard, filters by state in the engine, and keeps live ones to the filter', async ({ page }) => {
  await startBench();
  // 150 made at once by an outside client, as a busy backend would; the 20 oldest rolled back and the next 10 committed.
  const ids = await Promise.all(
    Array.from({ length: 150 }, async () => {
      const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
      expect(opened.status).toBe(201);
      return { id: opened.body.id as string, created_at: opened.body.created_at as string };
    }),
  );
  const oldestFirst = ids.sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1)).map(({ id }) => id);
  const [rolledBack, committed] = [oldestFirst.slice(0, 20), oldestFirst.slice(20, 30)];
  for (const id of rolledBack) expect((await bench.call('POST', `/transactions/${id}/rollback`, { key: bench.privateKey })).status).toBe(200);
  for (const id of committed) expect((await bench.call('POST', `/transactions/${id}/commit`, { key: bench.privateKey })).status).toBe(200);

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Transactions');
  const tx = transactionsPage(page);
  const show = (label: string) => tx.list.getByRole('combobox', { name: 'Show' }).selectOption({ label });
  const loadOlder = tx.list.getByRole('button', { name: 'Load older transactions' });
  await expect(tx.rows).toHaveCount(100);
  await expect(tx.list).toContainText('150 transactions kept · 120 open');
  await expect(tx.list).toContainText('Showing 100 of 150');
  await expect(tx.row(oldestFirst[0])).toHaveCount(0);

  // From the keyboard: the older 50 join below, and the list says there are no more.
  await loadOlder.focus();
  await page.keyboard.press('Enter');
  await expect(tx.rows).toHaveCount(150);
  await expect(tx.row(oldestFirst[0])).toContainText('rolled back');
  await expect(loadOlder).toHaveCount(0);
  await expect(tx.list.getByText('No older transactions.')).toBeFocused();

  // The engine filters what it keeps: all 20 rolled back, though none was on the first page.
  await show('rolled back');
  await expect(tx.rows).toHaveCount(20);
  await expect(tx.list).toContainText('20 of 150');
  await expect(tx.list.getByText('No older transactions.')).toBeVisible();
  await show('ended (any)');
  await expect(tx.rows).toHaveCount(30);
  await expect(tx.list).toContainText('30 of 150');
  await show('open');
  await expect(tx.rows).toHaveCount(100);
  await expect(tx.list).toContainText('Showing 100 of 120');
  await loadOlder.click();
  await expect(tx.rows).toHaveCount(120);

  // Live, under "open": a new one joins, one that ends leaves, and the counts follow.
  const opened = await bench.call('POST', '/transactions', { key: bench.managementKey });
  await expect(tx.row(opened.body.id)).toContainText('Tokenbench management');
  const newestOpen = oldestFirst.at(-1)!;
  expect((await bench.call('POST', `/transactions/${newestOpen}/commit`, { key: bench.privateKey })).status).toBe(200);
  await expect(tx.row(newestOpen)).toHaveCount(0);
  await expect(tx.rows).toHaveCount(120);
  await expect(tx.list).toContainText('120 of 151');
  // Under "committed", a new open one stays out of the list; the counts still follow.
  await show('committed');
  await expect(tx.rows).toHaveCount(11);
  const another = await bench.call('POST', '/transactions', { key: bench.privateKey });
  await expect(tx.list).toContainText('11 of 152');
  await expect(tx.row(another.body.id)).toHaveCount(0);
  await expect(tx.rows).toHaveCount(11);
});

test('a commit the vault refuses is said in its own words, and the transaction stays open', async ({ page }) => {
  await startBench();
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Transactions');
  const tx = transactionsPage(page);
  await tx.create();
  const id = await tx.shownId();
  const soon = new Date(Date.now() + 2000).toISOString();
  const token = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'short-lived', expires_at: soon } });
  expect(token.status).toBe(201);
  const patched = await bench.call('PATCH', `/tokens/${token.body.id}`, {
    key: bench.privateKey,
    body: { metadata: { note: 'staged' } },
    headers: { 'BT-TRANSACTION-ID': id, 'content-type': 'application/merge-patch+json' },
  });
  expect(patched.status).toBe(200);
  await expect(tx.detail.getByRole('list', { name: 'Locks held' })).toContainText(`${token.body.id} locked`);
  // The token expires under the staged update: the vault refuses the commit (409) and keeps the transaction open.
  await page.waitForTimeout(Math.max(0, Date.parse(soon) - Date.now()) + 200);
  await tx.detail.getByRole('button', { name: 'Commit' }).click();
  await expect(tx.detail.getByRole('alert')).toHaveText(`409 Conflict: Cannot commit: token ${token.body.id} no longer exists`);
  await expect(tx.row(id)).toContainText(/\d+:\d\d:\d\d/);
});

test("an outside client's transaction appears live, and the countdown of a short one ends in expired", async ({ page }) => {
  await startBench({ transactionTtlSeconds: 3 });
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Transactions');
  const tx = transactionsPage(page);
  await expect(tx.list).toContainText('A transaction lasts 3 seconds');
  await expect(tx.list).toContainText('No transactions yet');

  const opened = await bench.call('POST', '/transactions', { key: bench.managementKey });
  expect(opened.status).toBe(201);
  const row = tx.row(opened.body.id);
  await expect(row).toContainText('Tokenbench management');
  await expect(row).toContainText(/0:0[0-3]/);
  await expect(row).toContainText('expired', { timeout: 6000 });
  await tx.open(opened.body.id);
  await expect(tx.detail.getByText('expired', { exact: true })).toBeVisible();
  // The engine rolled it back: a commit now is the 409 the line above the list promises.
  expect((await bench.call('POST', `/transactions/${opened.body.id}/commit`, { key: bench.managementKey })).status).toBe(409);
});
