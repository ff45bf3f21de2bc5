import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { UI_DIR } from './support/paths';
import { tokensPage } from './support/tokens-page';
import { openPage, openWorkbench } from './support/workbench-page';

/** The Tokens page in Chromium against a real engine: find, inspect, create and change tokens as an application. */
const PAN = '4242424242424242';
let bench: TestEngine;
let problems: string[];

test.beforeEach(async ({ page }) => {
  problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    // A refused call (an invalid search, a 404) is the browser's console error too; the page says it in place.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) {
      problems.push(message.text());
    }
  });
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)),
  );
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});

test.afterEach(async () => {
  const seen = [...problems];
  await bench.stop();
  expect(seen).toEqual([]);
});

async function open(page: Page) {
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Tokens');
  return tokensPage(page);
}

async function apiToken(body: Record<string, unknown>, headers?: Record<string, string>): Promise<string> {
  const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body, headers });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

async function application(name: string, rules: unknown[]): Promise<void> {
  const created = await bench.call('POST', '/applications', { key: bench.managementKey, body: { name, type: 'private', rules } });
  expect(created.status, created.text).toBe(201);
}

const BRANDS: [string, string][] = [
  ['Visa', 'visa'],
  ['Mastercard', 'mastercard'],
  ['American Express', 'american-express'],
  ['Discover', 'discover'],
  ['JCB', 'jcb'],
  ['Diners Club', 'diners-club'],
  ['UnionPay', 'unionpay'],
];

test('generates and creates a card of each brand and a bank account, then finds them by search and by filter', async ({ page }) => {
  // Eight creates through the form, each checked: more than the default budget on a loaded two-core machine.
  test.setTimeout(90_000);
  const t = await open(page);
  await t.newToken();
  const created: string[] = [];
  for (const [label, brand] of BRANDS) {
    await t.form.getByRole('combobox', { name: 'Brand' }).selectOption({ label });
    await t.form.getByRole('button', { name: 'Generate test data' }).click();
    await expect(t.form.getByRole('textbox', { name: 'Card number' })).not.toHaveValue('');
    await t.form.getByText(/^Options:/).click();
    await t.form.getByRole('textbox', { name: 'Key of new metadata entry' }).fill('brand');
    await t.form.getByRole('textbox', { name: 'Value of metadata brand' }).fill(brand);
    await t.form.getByRole('button', { name: 'Create token' }).click();
    await expect(t.notice).toContainText('Created token');
    const id = (await t.notice.innerText()).match(/Created token (\S+)\./)![1];
    created.push(id);
    // The API reports the brand the generator made the card for.
    await expect(t.side.getByRole('definition').filter({ hasText: 'BIN' })).toContainText(brand);
    await expect(t.row(id)).toBeVisible();
    await t.newToken();
  }
  await t.form.getByRole('combobox', { name: 'Type' }).selectOption('bank');
  await t.form.getByRole('button', { name: 'Generate test data' }).click();
  await t.form.getByRole('button', { name: 'Create token' }).click();
  await expect(t.notice).toContainText('Created token');
  const bank = (await t.notice.innerText()).match(/Created token (\S+)\./)![1];
  await expect(t.side).toContainText('/bank/high/');

  await expect(t.summary).toContainText('8 tokens');
  await t.search('type:card AND metadata.brand:jcb');
  await expect(t.summary).toContainText('1 token');
  await expect(t.rows).toHaveCount(1);
  await expect(t.row(created[4])).toBeVisible();

  await t.search('');
  await t.filter('Type', 'Bank account');
  await expect(t.summary).toContainText('1 token');
  await expect(t.row(bank)).toBeVisible();
  await t.filter('Type', 'any');
  await expect(t.summary).toContainText('8 tokens');
});

test('creates many at once, for a list or a load test: fresh test data each, in batches the API takes', async ({ page }) => {
  const t = await open(page);
  await t.newToken();
  await t.form.getByRole('combobox', { name: 'Type' }).selectOption('social_security_number');
  await t.form.getByRole('button', { name: 'Generate test data' }).click();
  await t.form.getByRole('textbox', { name: 'How many' }).fill('250');
  await t.form.getByRole('button', { name: 'Create 250 tokens' }).click();
  await expect(t.notice).toHaveText('Created 250 tokens.');
  await expect(t.summary).toContainText('250 tokens');
  await bench.engine.history.flush();
  expect((await bench.engine.history.list(100)).filter((entry) => entry.path === '/tokenize').map((entry) => entry.status)).toEqual([200, 200, 200]);
});

test('an invalid search is shown in place, with the column, and the list comes back when it is fixed', async ({ page }) => {
  await apiToken({ type: 'card_number', data: PAN });
  const t = await open(page);
  await expect(t.rows).toHaveCount(1);
  await t.search('type:card AND (metadata.order:o-1');
  await expect(t.listPanel.getByRole('alert')).toHaveText('Invalid search query: missing ")" for the "(" at column 15');
  await expect(t.listPanel.getByRole('searchbox', { name: 'Search query' })).toHaveAttribute('aria-invalid', 'true');
  await t.search('type:card_number');
  await expect(t.listPanel.getByRole('alert')).toHaveCount(0);
  await expect(t.rows).toHaveCount(1);
});

test('finds a card by what is typed into the one search box, as its hint and its list of fields say', async ({ page }) => {
  const visa = await apiToken({ type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 }, metadata: { order: 'o-1' } });
  const mastercard = await apiToken({ type: 'card_number', data: '5555555555554444' });
  await apiToken({ type: 'card', data: { number: '378282246310005', expiration_month: 3, expiration_year: 2030 } });
  const t = await open(page);
  await expect(t.rows).toHaveCount(3);
  const box = t.listPanel.getByRole('searchbox', { name: 'Search query' });
  // The hint under the box says what may be typed; it is the box's description.
  await expect(box).toHaveAccessibleDescription(/last four .*BIN .*brand .*expiry .*metadata value/);

  const finds = async (query: string, id: string) => {
    await t.search(query);
    await expect(t.summary, query).toHaveText(/^1 token/);
    await expect(t.row(id)).toBeVisible();
  };
  await finds('4242', visa);
  await finds('424242', visa);
  await finds('visa', visa);
  await finds('12/2031', visa);
  await finds('O-1', visa);
  await finds(PAN, visa);
  // A card number typed is the user's to see, not the browser profile's to keep: the query kept for a reload leaves it out.
  expect(await page.evaluate(() => JSON.stringify({ ...window.localStorage }))).not.toContain(PAN);
  await finds('card.last4:4444', mastercard);
  await finds('mastercard', mastercard);
  await t.search('9999');
  await expect(t.listPanel.getByText('No token matches')).toBeVisible();

  // The list of fields opens from the box, and closes with Escape.
  const help = t.listPanel.getByRole('button', { name: 'Search fields' });
  await help.click();
  const fields = t.listPanel.getByRole('region', { name: 'Search fields' });
  await expect(fields.getByRole('term').filter({ hasText: 'card.last4' })).toBeVisible();
  await expect(fields.getByRole('term').filter({ hasText: 'metadata.<key>' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(fields).toBeHidden();
  await expect(help).toBeFocused();

  // An error marks only the box it is about.
  await t.search('card.last4:42');
  await expect(t.listPanel.getByRole('alert')).toHaveText(/^Invalid search query: card\.last4 at column 1 takes the last 4 digits/);
  await expect(box).toHaveAttribute('aria-invalid', 'true');
  const container = t.listPanel.getByRole('textbox', { name: 'Container' });
  await expect(container).not.toHaveAttribute('aria-invalid', 'true');
  await t.search('4242');
  await container.fill('pci');
  await container.blur();
  await expect(t.listPanel.getByRole('alert')).toHaveText(/^Invalid container filter/);
  await expect(container).toHaveAttribute('aria-invalid', 'true');
  await expect(box).not.toHaveAttribute('aria-invalid', 'true');
});

test('a token an outside client creates appears live; the keyboard opens it; reveal shows plaintext, then hides it', async ({ page }) => {
  await page.clock.install();
  const t = await open(page);
  await expect(t.listPanel).toContainText('No token matches');
  const id = await apiToken({ type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 } });
  await expect(t.row(id)).toBeVisible();

  await t.list.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(t.side.getByRole('heading', { name: `Token ${id}` })).toBeVisible();
  await expect(t.data).toContainText('XXXXXXXXXXXX4242');

  const reveal = () => t.side.getByRole('button', { name: 'Reveal' }).click();
  await reveal();
  await expect(t.data).toContainText(PAN);
  await t.side.getByRole('button', { name: 'Hide' }).click();
  await expect(t.data).not.toContainText(PAN);

  // The window losing the focus hides it.
  await reveal();
  await expect(t.data).toContainText(PAN);
  await page.evaluate(() => window.dispatchEvent(new Event('blur')));
  await expect(t.data).not.toContainText(PAN);

  // And so does time: 30 seconds.
  await reveal();
  await expect(t.data).toContainText(PAN);
  await expect(t.side).toContainText(/hides in \d+ s/);
  await page.clock.runFor(29_000);
  await expect(t.data).toContainText(PAN);
  await page.clock.runFor(2_000);
  await expect(t.data).not.toContainText(PAN);

  // Each reveal is in History, by the token's id, never its value.
  await bench.engine.history.flush();
  const reveals = (await bench.engine.history.list(100)).filter((entry) => entry.kind === 'workbench');
  expect(reveals.map((entry) => [entry.method, entry.path])).toEqual(Array(3).fill(['REVEAL', `/tokens/${id}`]));
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'History' }).click();
  await page.getByRole('combobox', { name: 'Show' }).selectOption('reveals');
  await expect(page.getByTestId('history-row')).toHaveCount(3);
  await page.getByTestId('history-path').first().click();
  await expect(page.getByTestId('entry-answer')).toContainText('Revealed in the workbench');
  await expect(page.getByTestId('entry-answer')).toContainText(`the data of token ${id}`);
  await expect(page.locator('body')).not.toContainText(PAN);
});

test('in a narrow window, where the token sits below the list, opening one brings it into view', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 900 });
  const id = await apiToken({ type: 'card_number', data: PAN });
  const t = await open(page);
  await t.list.focus();
  await page.keyboard.press('Enter');
  await expect(t.side.getByRole('heading', { name: `Token ${id}` })).toBeInViewport();
});

test('reads as an application with a masking rule, and as one without token:use', async ({ page }) => {
  const id = await apiToken({ type: 'card_number', data: PAN });
  await application('masking reader', [{ description: 'pci masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }]);
  await application('proxy user', [{ description: 'use it', priority: 1, container: '/', transform: 'reveal', permissions: ['token:read', 'token:use'] }]);
  const t = await open(page);
  await t.open(id);
  await t.tab('Read as…');
  const readAs = async (name: string) => {
    await t.side.getByRole('combobox', { name: 'Application' }).selectOption({ label: `${name} · private` });
    await t.side.getByRole('button', { name: 'Read as this application' }).click();
    return t.side.getByRole('region', { name: `What ${name} gets` });
  };
  const masking = await readAs('masking reader');
  await expect(masking).toContainText('Reading it: masked');
  await expect(masking).toContainText('XXXXXXXXXXXX4242');
  await expect(masking).toContainText('by rule “pci masked” (priority 1, on /pci/)');
  await expect(masking).toContainText('Using it in the proxy: refused');
  await expect(masking).toContainText('no access rule grants token:use on /pci/high/');

  const user = await readAs('proxy user');
  await expect(user).toContainText('Reading it: plaintext');
  await expect(user).toContainText('Using it in the proxy: plaintext');
  await expect(page.locator('body')).not.toContainText(PAN);
});

test('edits metadata, then deletes the token after confirming, each recorded in History as done on the Tokens page as the application', async ({ page }) => {
  const id = await apiToken({ type: 'card_number', data: PAN, metadata: { order: 'o-1' } });
  const t = await open(page);
  await t.open(id);
  await t.tab('Change');
  await t.side.getByRole('textbox', { name: 'Value of metadata order' }).fill('o-2');
  await t.side.getByRole('textbox', { name: 'Key of new metadata entry' }).fill('paid');
  await t.side.getByRole('textbox', { name: 'Value of metadata paid' }).fill('yes');
  await t.side.getByRole('button', { name: 'Save changes' }).click();
  await expect(t.notice).toContainText(`Saved the changes to token ${id}`);
  await t.tab('Fields');
  await expect(t.side).toContainText('order: o-2, paid: yes');
  await expect(t.row(id)).toContainText('order=o-2, paid=yes');

  await t.tab('Change');
  await t.side.getByRole('button', { name: 'Delete…' }).click();
  const confirm = t.side.getByRole('alertdialog', { name: 'Delete the token' });
  await expect(confirm).toContainText(`Delete token ${id}?`);
  await confirm.getByRole('button', { name: 'Delete token' }).click();
  await expect(t.notice).toContainText(`Deleted token ${id}`);
  await expect(t.row(id)).toHaveCount(0);
  expect((await bench.call('GET', `/tokens/${id}`, { key: bench.privateKey })).status).toBe(404);

  await bench.engine.history.flush();
  const backend = bench.engine.bootstrapKeys!.private.application_id;
  const writes = (await bench.engine.history.list(100)).filter((entry) => entry.path === `/tokens/${id}` && entry.method !== 'GET');
  expect(writes.map((entry) => [entry.method, entry.status, entry.application_id])).toEqual([
    ['DELETE', 204, backend],
    ['PATCH', 200, backend],
  ]);

  // History tells the user's own delete from one their back end made with the same key: it names the page.
  await openPage(page, 'History');
  const deleted = page.getByRole('row', { name: new RegExp(`DELETE /tokens/${id} `) });
  await expect(deleted.getByRole('cell', { name: `/tokens/${id} Sent by Tokens page · Tokenbench backend` })).toBeVisible();
  await deleted.getByRole('button', { name: `/tokens/${id}` }).click();
  await expect(page.getByRole('region', { name: `DELETE /tokens/${id}` })).toContainText('Sent by Tokens page · Tokenbench backend');
  // The search finds what a page did; the token the test's own client created is not among it.
  await expect(page.getByRole('row', { name: /POST \/tokens / })).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Search the requests' }).fill('tokens page');
  await expect(page.getByRole('row', { name: /POST \/tokens / })).toHaveCount(0);
  await expect(page.getByRole('row', { name: new RegExp(`PATCH /tokens/${id} `) })).toBeVisible();
});

test('creates inside a transaction: staged here, invisible to other readers until the commit', async ({ page }) => {
  const transaction = (await bench.call('POST', '/transactions', { key: bench.privateKey })).body.id as string;
  const t = await open(page);
  await t.writeIn(transaction.slice(0, 8));
  await t.newToken();
  await t.form.getByRole('combobox', { name: 'Type' }).selectOption('card_number');
  await t.form.getByRole('textbox', { name: 'Card number' }).fill(PAN);
  await expect(t.form).toContainText(`Inside transaction ${transaction.slice(0, 8)}`);
  await t.form.getByRole('button', { name: 'Create token' }).click();
  await expect(t.notice).toContainText(`staged in transaction ${transaction.slice(0, 8)} until it commits`);
  const id = (await t.notice.innerText()).match(/Created token (\S+),/)![1];
  await expect(t.side).toContainText(`created in open transaction ${transaction.slice(0, 8)}, not committed`);
  await expect(t.row(id)).toContainText('staged');
  await expect(t.summary).toContainText('0 tokens · 1 write staged in open transactions');

  // Every other reader: the wire API sees nothing until the commit.
  const outside = await bench.call('POST', '/v2/tokens/search', { key: bench.privateKey, body: { query: '' } });
  expect(outside.body.data).toEqual([]);

  expect((await bench.call('POST', `/transactions/${transaction}/commit`, { key: bench.privateKey })).status).toBe(200);
  await expect(t.summary).toHaveText('1 token');
  await expect(t.row(id)).not.toContainText('staged');
  await t.filter('Created in', transaction.slice(0, 8));
  await expect(t.rows).toHaveCount(1);
});

test('copies an expression, and puts one in the Composer at its cursor, where it detokenizes', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const id = await apiToken({ type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 } });
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body('{"pan": "", "amount": 10}');
  // The cursor between the quotes of "pan".
  await page.getByRole('textbox', { name: 'Request body' }).press('Control+Home');
  for (let i = 0; i < 9; i++) await page.getByRole('textbox', { name: 'Request body' }).press('ArrowRight');

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Tokens' }).click();
  const t = tokensPage(page);
  await t.open(id);
  await t.tab('Use');
  const expression = `{{ ${id} | json: '$.number' }}`;
  await t.side.getByRole('button', { name: 'Copy card number expression' }).click();
  await expect(t.side.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expression);

  await t.side.getByRole('button', { name: 'Use card number expression in Composer' }).click();
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Request body' })).toHaveText(`{"pan": "${expression}", "amount": 10}`);
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
  expect(JSON.parse(JSON.parse(await c.rawBody()).body)).toEqual({ pan: PAN, amount: 10 });
});

test('reveals as the acting application only what it may read, and says which rule refuses; History records both', async ({ page }) => {
  const id = await apiToken({ type: 'card_number', data: PAN });
  await application('masking reader', [{ description: 'pci masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:search'] }]);
  const t = await open(page);
  await t.actAs('masking reader · private');
  await t.open(id);
  await expect(t.side.getByRole('region', { name: 'Data' })).toContainText('Reveal shows the plaintext if masking reader may read it.');
  await t.side.getByRole('button', { name: 'Reveal' }).click();
  const refusal = t.side.getByRole('alert');
  await expect(refusal).toContainText(`Application “masking reader” reads token ${id} masked, by its rule “pci masked” (priority 1, on /pci/)`);
  await expect(refusal).toContainText('Reveal it as an application whose access rules reveal it, or change these in Settings.');
  await expect(t.data).toContainText('XXXXXXXXXXXX4242');

  await t.actAs('Tokenbench backend · private');
  await t.open(id);
  await t.side.getByRole('button', { name: 'Reveal' }).click();
  await expect(t.data).toContainText(PAN);
  await t.side.getByRole('button', { name: 'Hide' }).click();

  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'History' }).click();
  await page.getByRole('combobox', { name: 'Show' }).selectOption('reveals');
  const senders = page.getByTestId('history-sender');
  await expect(senders).toHaveText([
    `Sent by Tokens page · Tokenbench backend · Revealed the data of token ${id} as application “Tokenbench backend”`,
    `Sent by Tokens page · masking reader · Could not reveal the data of token ${id} as application “masking reader”`,
  ]);
  await page.getByTestId('history-path').last().click();
  await expect(page.getByTestId('entry-answer')).toContainText('Reveal failed: 403');
  await expect(page.getByTestId('entry-answer')).toContainText(`Could not reveal the data of token ${id} as application “masking reader”, at the user's request: nothing was shown.`);
  await expect(page.locator('body')).not.toContainText(PAN);
});

test('canary: no plaintext in the page or in History after any step but the reveal', async ({ page }) => {
  const revealer = 'reveal everything';
  await application(revealer, [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:update', 'token:search', 'token:use', 'token:delete'] }]);
  const noPlaintext = async (step: string) => {
    const inputs = await page.locator('input, textarea, select').evaluateAll((fields) => fields.map((field) => (field as HTMLInputElement).value));
    expect(`${await page.content()}\n${inputs.join('\n')}`, step).not.toContain(PAN);
    await bench.engine.history.flush();
    expect(JSON.stringify(await bench.engine.history.list(500)), step).not.toContain(PAN);
  };
  const outside = await apiToken({ type: 'card', data: { number: PAN, expiration_month: 1, expiration_year: 2032 }, metadata: { order: 'o-1' } });
  const t = await open(page);
  await expect(t.row(outside)).toBeVisible();
  await noPlaintext('listed');

  // As an application that reads and writes plaintext: the page still shows the mask.
  await t.actAs(`${revealer} · private`);
  await expect(t.row(outside)).toContainText('XXXXXXXXXXXX4242');
  await t.open(outside);
  await noPlaintext('opened as an application that reads plaintext');
  for (const tab of ['Read as…', 'Use', 'Change'] as const) {
    await t.tab(tab);
    if (tab === 'Read as…') {
      await t.side.getByRole('button', { name: 'Read as this application' }).click();
      await expect(t.side).toContainText('Reading it: plaintext');
    }
    await noPlaintext(tab);
  }
  await t.side.getByRole('textbox', { name: 'Value of metadata order' }).fill('o-2');
  await t.side.getByRole('button', { name: 'Save changes' }).click();
  await expect(t.notice).toContainText('Saved the changes');
  await noPlaintext('changed');

  await t.search(`data:${PAN}`);
  await expect(t.summary).toContainText('0 tokens');
  await t.search('');
  await noPlaintext('searched');

  await t.newToken();
  await t.form.getByRole('combobox', { name: 'Type' }).selectOption('card_number');
  await t.form.getByRole('textbox', { name: 'Card number' }).fill(PAN);
  await t.form.getByRole('button', { name: 'Create token' }).click();
  await expect(t.notice).toContainText('Created token');
  await noPlaintext('created through the form');

  await t.open(outside);
  await t.side.getByRole('button', { name: 'Reveal' }).click();
  await expect(t.data).toContainText(PAN);
  await t.side.getByRole('button', { name: 'Hide' }).click();
  await noPlaintext('revealed, then hidden');

  await t.tab('Change');
  await t.side.getByRole('button', { name: 'Delete…' }).click();
  await t.side.getByRole('button', { name: 'Delete token' }).click();
  await expect(t.notice).toContainText('Deleted token');
  await noPlaintext('deleted');
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'History' }).click();
  await expect(page.getByTestId('history-row').first()).toBeVisible();
  await noPlaintext('History');
});
