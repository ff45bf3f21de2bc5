import { expect, test, type Browser, type Page } from '@playwright/test';
import { historyPage } from './support/history-page';
import { goToSettings, settingsSection } from './support/settings-page';
import { workbenchTests } from './support/workbench-tests';
import { connectionState, engineFact, openPage } from './support/workbench-page';

/**
 * Two people sign in at the workbench's sign-in form with the credentials the owner made in Settings, act, and History
 * names each; a credential the owner revokes ends its holder's open page at the next call.
 */
const bench = workbenchTests();

/** A new browser context (its own sessionStorage), at the bare workbench address, signed in with `secret`. */
async function signedIn(browser: Browser, url: string, secret: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${url}/ui/`);
  const form = page.getByRole('form', { name: 'Sign in to Tokenbench' });
  await expect(form.getByRole('textbox', { name: 'Workbench credential' })).toBeFocused();
  await page.keyboard.type(secret);
  await page.keyboard.press('Enter');
  await expect(connectionState(page)).toHaveText('live');
  return page;
}

/** The owner makes a credential in Settings and reads its secret, shown this once. */
async function makeCredential(page: Page, name: string): Promise<string> {
  const section = settingsSection(page, 'Workbench credentials');
  await section.getByRole('textbox', { name: 'Person’s name' }).fill(name);
  await section.getByRole('button', { name: 'Create credential' }).click();
  const shown = section.getByRole('group', { name: `Credential of ${name}` });
  await expect(shown.getByRole('button', { name: `Copy credential of ${name}` })).toBeVisible();
  const secret = await shown.locator('code').innerText();
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(section.getByRole('table', { name: 'Workbench credentials' }).getByRole('cell', { name, exact: true })).toBeVisible();
  return secret;
}

test('two people sign in with their credentials and History names each one’s change', async ({ page, browser }) => {
  const engine = await bench.start();
  await page.goto(engine.engine.browserWorkbench!.url);
  await expect(connectionState(page)).toHaveText('live');
  await expect(engineFact(page, 'Signed in as')).toHaveCount(0);
  await goToSettings(page);
  const alice = await makeCredential(page, 'alice');
  const bob = await makeCredential(page, 'bob');

  const asAlice = await signedIn(browser, engine.url, alice);
  await expect(engineFact(asAlice, 'Signed in as')).toHaveText('alice');
  await openPage(asAlice, 'Settings');
  await makeCredential(asAlice, 'made by alice');

  const asBob = await signedIn(browser, engine.url, bob);
  await expect(engineFact(asBob, 'Signed in as')).toHaveText('bob');
  await openPage(asBob, 'Settings');
  await makeCredential(asBob, 'made by bob');

  await openPage(page, 'History');
  const history = historyPage(page);
  await expect(history.rows.filter({ hasText: 'Created workbench credential “made by alice”' })).toContainText('alice · Settings page');
  await expect(history.rows.filter({ hasText: 'Created workbench credential “made by bob”' })).toContainText('bob · Settings page');

  // Revoked by the owner: Bob's open page is refused at its next call, and his reload asks him to sign in again.
  const people = settingsSection(page, 'Workbench credentials');
  await openPage(page, 'Settings');
  await people.getByRole('button', { name: 'Revoke the credential of bob' }).click();
  await page.getByRole('button', { name: 'Revoke credential' }).click();
  await expect(people.getByRole('status')).toContainText('Revoked “bob”');
  await asBob.reload();
  await expect(asBob.getByRole('form', { name: 'Sign in to Tokenbench' }).getByRole('alert')).toContainText('session has ended');
  await asBob.getByRole('textbox', { name: 'Workbench credential' }).fill(bob);
  await asBob.getByRole('button', { name: 'Sign in' }).click();
  await expect(asBob.getByRole('alert')).toContainText('No workbench credential matches');
});
