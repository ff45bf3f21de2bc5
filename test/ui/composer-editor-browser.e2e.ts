import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * The Composer's editor knows the vault (issue 26), in Chromium against real engines: completion of token ids and
 * filters, flags before sending, hovers, a remote target, and code to copy that gets the same answer when run.
 */
const PAN = '4242424242424242';
const MASTERCARD = '5555555555554444';
const workbench = workbenchTests();
let bench: TestEngine;
let remote: TestEngine | undefined;

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test.beforeEach(async () => {
  bench = await workbench.start();
});

test.afterEach(async () => {
  await remote?.stop();
  remote = undefined;
});

async function cardToken(t: TestEngine, data = PAN): Promise<string> {
  const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data } });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function open(page: Page) {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  return composer(page);
}

const flags = (page: Page) => page.getByRole('list', { name: 'Flags' });

/** Sets one of the proxy's limits in Settings, as a user does, and comes back to the Composer; answers Settings' Proxy section. */
async function setProxyLimit(page: Page, label: RegExp, value: string) {
  await page.keyboard.press('Control+5');
  const proxy = page.getByRole('region', { name: 'Proxy', exact: true });
  await proxy.getByRole('spinbutton', { name: label }).fill(value);
  await proxy.getByRole('button', { name: 'Apply' }).click();
  await expect(proxy.getByRole('status').filter({ hasText: 'Applied and saved in the vault' })).toBeVisible();
  await page.keyboard.press('Control+1');
  return proxy;
}
const completions = (page: Page) => page.getByRole('listbox', { name: 'Completions' });

test('completion inserts a token id chosen by its mask, and a filter with its argument', async ({ page }) => {
  const visa = await cardToken(bench);
  const mastercard = await cardToken(bench, MASTERCARD);
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  const editor = c.request.getByRole('textbox', { name: 'Request body' });
  await editor.fill('{"pan": "');
  await editor.press('End');
  await page.keyboard.type('{{ ');
  await page.keyboard.press('Control+Space');
  // Both cards are offered, each with its mask; the user picks the Mastercard by what it shows.
  await expect(completions(page).getByRole('option')).toHaveCount(2);
  await completions(page).getByRole('option', { name: /XXXXXXXXXXXX4444/ }).click();
  await expect(editor).toContainText(`{{ ${mastercard} }}`);

  // Typing part of a mask finds the token by it; Enter takes it, then a filter after |.
  await editor.fill('{"pan": "');
  await editor.press('End');
  await page.keyboard.type('{{ 4242');
  await expect(completions(page).getByRole('option')).toHaveCount(1);
  await expect(completions(page).getByRole('option')).toContainText(visa);
  await page.keyboard.press('Enter');
  await page.keyboard.type('| reveal_l');
  await expect(completions(page).getByRole('option', { name: /reveal_last/ })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(editor).toContainText(`{{ ${visa} | reveal_last: 4, 'X'}}`);
  await expect(c.request.getByText(/proxy would accept this request/)).toBeVisible();
});

test('Enter takes the option the list shows, even pressed right after typing', async ({ page }) => {
  const visa = await cardToken(bench);
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  const editor = c.request.getByRole('textbox', { name: 'Request body' });
  await editor.fill('{"pan": "');
  await editor.press('End');
  await page.keyboard.type(`{{ ${visa.slice(0, 4)}`);
  await expect(completions(page).getByRole('option')).toContainText(visa);
  // The list has been on show for a while; one more character of the id starts a new query, and Enter comes before
  // its answer, while the list on show (greyed out) still offers the token.
  await page.waitForTimeout(300);
  await page.keyboard.type(visa.slice(4, 5));
  await page.keyboard.press('Enter');
  await expect(editor).toContainText(`{{ ${visa} `);
  // A filter, and Enter as soon as the list opens.
  await page.keyboard.type('| reveal_l');
  await expect(completions(page).getByRole('option', { name: /reveal_last/ })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(editor).toContainText(`{{ ${visa} | reveal_last: 4, 'X'}}`);
  // No Enter became a newline.
  await expect(editor.locator('.cm-line')).toHaveCount(1);
});

test('flags appear before sending: a broken expression, an unknown token, a token the application may not use, an expression in a header', async ({ page }) => {
  const id = await cardToken(bench);
  await bench.call('POST', '/applications', {
    key: bench.managementKey,
    body: { name: 'general only', type: 'private', rules: [{ description: 'general', priority: 1, container: '/general/', transform: 'reveal', permissions: ['token:use'] }] },
  });
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  const editor = c.request.getByRole('textbox', { name: 'Request body' });

  await c.body(`{"pan": "{{ ${id} | no_such_filter }}"}`);
  await expect(flags(page)).toContainText('Body, line 1');
  await expect(flags(page)).toContainText('undefined filter: no_such_filter');
  await expect(flags(page)).toContainText('What to do: Use a filter of the expression language');
  await expect(c.request.locator('.cm-lintRange-error')).toHaveCount(1);

  await c.body('{"pan": "{{ 00000000-0000-4000-8000-000000000000 }}"}');
  await expect(flags(page)).toContainText('400 from the proxy: Failed to detokenize some tokens: 00000000-0000-4000-8000-000000000000 not found or expired');

  await c.body(`{"pan": "{{ ${id} }}"}`);
  await expect(c.request.getByText(/proxy would accept this request/)).toBeVisible();
  await c.sendAs('general only · private');
  await expect(flags(page)).toContainText('403 from the proxy: The application lacks token:use on container /pci/high/');
  await expect(flags(page)).toContainText('no rule of “general only” grants token:use on /pci/high/');

  await c.sendAs('Tokenbench backend · private');
  await c.request.getByRole('tab', { name: /Headers/ }).click();
  await c.request.getByRole('textbox', { name: 'Name of new headers row' }).fill('X-Card');
  await c.request.getByRole('textbox', { name: 'Value of headers X-Card' }).fill(`{{ ${id} }}`);
  await expect(flags(page)).toContainText('Header X-Card');
  await expect(flags(page)).toContainText('sent as written: only the body is detokenized');

  // From the keyboard: the editor's own list of its flags.
  await c.request.getByRole('tab', { name: 'Body' }).click();
  await c.body(`{"pan": "{{ ${id} | nope }}"}`);
  await expect(c.request.locator('.cm-lintRange-error')).toHaveCount(1);
  await editor.press('Control+Shift+M');
  await expect(c.request.getByRole('listbox', { name: 'Diagnostics' })).toContainText('undefined filter: nope');
  // Nothing was sent to get these.
  expect((await bench.engine.workbench.listHistory({ limit: 100 })).filter((entry) => entry.kind === 'proxy')).toEqual([]);
});

const CARD = { number: PAN, expiration_month: 12, expiration_year: 2030, cvc: '123' };

test('a JSONPath typo is flagged before sending with the fields and the nearest one, and the answer says what went out empty', async ({ page }) => {
  const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card', data: CARD } });
  const id: string = created.body.id;
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  const typo = `{{ ${id} | json: '$.numbr' }}`;
  await c.body(`{\n  "number": "${typo}",\n  "exp": "{{ ${id} | card_exp: 'MM/YY' }}"\n}`);
  const checks = c.request.getByRole('region', { name: 'Checks before sending' });
  await expect(checks).toContainText('The proxy would accept this request, but check 1 warning first');
  await expect(flags(page)).toContainText('Body, line 2');
  await expect(flags(page)).toContainText(`$.numbr matches nothing in the data of card token ${id.slice(0, 8)}…, whose fields are number, expiration_month, expiration_year, cvc`);
  await expect(flags(page)).toContainText('What to do: Did you mean $.number?');
  await expect(c.request.locator('.cm-lintRange-warning')).toHaveText(typo);

  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
  await expect(c.outcome).toContainText(`Sent empty: ${typo} (body, line 2) wrote nothing`);
  await c.outcome.getByRole('button', { name: 'Show it in the body' }).click();
  await expect(c.request.locator('.cm-culprit')).toHaveText(typo);
  // The page holds the answer's body, and no value of the card anywhere.
  await expect(page.locator('body')).not.toContainText(PAN);
});

test('flags come errors first, and the first error is in view and next from the editor on the keyboard', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card', data: CARD } });
  const id: string = created.body.id;
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  const editor = c.request.getByRole('textbox', { name: 'Request body' });
  const lines = Array.from({ length: 8 }, (_, n) => `  "note${n}": "line ${n}",`).join('\n');
  await c.body(`{\n  "number": "{{ ${id} | json: '$.numbr' }}",\n${lines}\n  "cvc": "{{ 00000000-0000-4000-8000-000000000000 }}"\n}`);
  const items = flags(page).getByRole('listitem');
  await expect(items.first()).toContainText('not found or expired');
  await expect(items.first()).toContainText('Error');
  await expect(items.nth(1)).toContainText('matches nothing');
  // Whole, give or take a fraction of a pixel.
  await expect(items.first()).toBeInViewport({ ratio: 0.99 });
  // Tab from the editor reaches the first error's place, which goes back to it.
  await editor.press('Tab');
  await expect(items.first().getByRole('button', { name: 'Body, line 11' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(editor).toBeFocused();
});

test('a lower expression limit set in Settings is flagged in the Composer before sending, without a restart', async ({ page }) => {
  const id = await cardToken(bench);
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body(JSON.stringify({ a: `{{ ${id} }}`, b: `{{ ${id} }}`, c: `{{ ${id} }}` }));
  await expect(c.request.getByText(/proxy would accept this request/)).toBeVisible();

  const proxy = await setProxyLimit(page, /Expression limit/, '2');
  await expect(flags(page)).toContainText('400 from the proxy: The body holds 3 expressions; at most 2 are detokenized per request');
  await expect(flags(page)).toContainText('Body, line 1');
  // The flag sits on the first expression over the limit: the third.
  await expect(c.request.locator('.cm-lintRange-error')).toHaveText(`{{ ${id} }}`);

  await page.keyboard.press('Control+5');
  await proxy.getByRole('button', { name: 'Back to the defaults' }).click();
  await expect(proxy).toContainText('Now 20 token expressions');
  await page.keyboard.press('Control+1');
  await expect(c.request.getByText(/proxy would accept this request/)).toBeVisible();
  await expect(flags(page)).not.toContainText('expressions; at most');
});

test('a body over the body limit set in Settings is flagged with the limit, and the checks come back once it is under', async ({ page }) => {
  const id = await cardToken(bench);
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  const note = (length: number) => `{"pan": "{{ ${id} | nope }}", "note": "${'x'.repeat(length)}"}`;
  await c.body(note(10));
  await expect(flags(page)).toContainText('undefined filter: nope');

  await setProxyLimit(page, /Body limit/, '2048');
  const checks = c.request.getByRole('region', { name: 'Checks before sending' });
  const over = note(3000);
  await c.body(over);
  await expect(checks).toContainText('The proxy would refuse this request: its body is over the body limit.');
  await expect(flags(page)).toContainText(`413 from the proxy: The body is ${Buffer.byteLength(over).toLocaleString('en')} bytes, over the body limit of 2,048 bytes (--max-body)`);
  await expect(flags(page)).toContainText('What to do: Shorten the body, or raise the body limit in Settings (a --max-body given at start wins).');
  // The flags of the body before are gone: they were for another body.
  await expect(flags(page)).not.toContainText('undefined filter');
  // Typing on keeps it flagged, with the size as it grows.
  const editor = c.request.getByRole('textbox', { name: 'Request body' });
  await editor.press('Control+End');
  await page.keyboard.type('yy');
  await expect(flags(page)).toContainText(`The body is ${(Buffer.byteLength(over) + 2).toLocaleString('en')} bytes`);

  await c.body(note(20));
  await expect(flags(page)).toContainText('undefined filter: nope');
  await expect(checks).not.toContainText('body limit');
  // The browser logs each refused check as a failed load; the page showed what it means.
  workbench.forgive(/status of 413 \(Payload Too Large\)/);
});

test('hovering an expression shows its token masked and what it writes, never the data', async ({ page }) => {
  const id = await cardToken(bench);
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body(`{"last4": "{{ ${id} | last4 }}"}`);
  await c.request.locator('.cm-expression').first().hover();
  const tooltip = c.request.locator('.cm-tooltip-hover');
  await expect(tooltip).toContainText('XXXXXXXXXXXX4242');
  await expect(tooltip).toContainText('"4242"');
  await expect(tooltip).toContainText('may use it revealed');
  await expect(page.locator('body')).not.toContainText(PAN);
});

test('a remote target, its key pasted in, answers through the same response view', async ({ page }) => {
  remote = await startTestEngine({ inMemory: true, echoPort: 0 });
  const remoteToken = await cardToken(remote);
  const c = await open(page);
  const targets = c.request.getByRole('group', { name: /^Remote targets/ });
  await targets.getByText('Remote targets').click();
  await c.request.getByRole('textbox', { name: 'Name' }).fill('second engine');
  await c.request.getByRole('textbox', { name: 'Base URL' }).fill(remote.url);
  await c.request.getByLabel('API key').fill(remote.privateKey);
  await c.request.getByRole('button', { name: 'Add remote target' }).click();
  await expect(c.request.getByRole('combobox', { name: 'Send to' })).toHaveValue(/.+/);
  await expect(c.request.getByRole('list', { name: 'Remote targets' })).toContainText(`key …${remote.privateKey.slice(-4)}`);
  await expect(page.locator('body')).not.toContainText(remote.privateKey);

  await c.destination(`${remote.engine.echoUrl}/v1/charges`);
  await c.body(`{"pan": "{{ ${remoteToken} }}"}`);
  // The remote's tokens are its own: not flagged as unknown here, and the local engine's differences are not shown.
  await expect(c.request.getByText('Sending to a remote target: only the request itself is checked')).toBeVisible();
  await expect(flags(page)).toHaveCount(0);
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
  expect(JSON.parse(JSON.parse(await c.rawBody()).body)).toEqual({ pan: PAN });
  expect((await remote.engine.workbench.listHistory({ limit: 10 })).some((entry) => entry.kind === 'proxy')).toBe(true);
  // This engine's history says what was sent there, and to whom.
  await bench.engine.history.flush();
  expect((await bench.engine.history.list(10)).find((entry) => entry.method === 'SEND')?.details).toEqual({
    change: { action: 'sendRequest', summary: 'Sent POST /proxy/v1/charges to remote target “second engine”: answered 200' },
  });

  // A remote target's key is never written into code to copy.
  const includeKey = c.request.getByRole('checkbox', { name: 'Include the key' });
  await expect(includeKey).toBeDisabled();
  await expect(includeKey).toHaveAccessibleDescription('A remote target’s key stays in Tokenbench: the code reads it from BT_API_KEY.');

  // Deleting asks first: the key kept for it goes with it.
  await targets.getByRole('button', { name: 'Delete second engine' }).click();
  const question = page.getByRole('alertdialog', { name: 'Delete remote target “second engine”?' });
  await expect(question).toContainText(`The key Tokenbench keeps for it (…${remote.privateKey.slice(-4)}) is deleted with it`);
  await expect(question.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await question.getByRole('button', { name: 'Delete “second engine”' }).click();
  await expect(c.request.getByRole('combobox', { name: 'Send to' })).toHaveCount(0);
  await expect(targets.getByRole('status')).toHaveText(`Deleted remote target “second engine” and its key …${remote.privateKey.slice(-4)}.`);
});

const execute = promisify(execFile);

test('the copied cURL command and Node script, run for real, get the answer the Composer showed', async ({ page }) => {
  const id = await cardToken(bench);
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges?currency=eur`);
  await c.body(`{\n  "pan": "{{ ${id} }}",\n  "note": "it's $HOME"\n}`);
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
  // The Composer masks the card number the echo repeats; the copied code, an outside client, gets it as sent.
  await c.response.getByRole('button', { name: 'Reveal values' }).click();
  await expect.poll(() => c.rawBody()).toContain(PAN);
  const shown = JSON.parse(await c.rawBody());
  const answer = ({ method, path, query, body }: Record<string, unknown>) => ({ method, path, query, body });
  expect(answer(shown).body).toContain(PAN);

  const scratch = mkdtempSync(join(tmpdir(), 'tokenbench-copied-'));
  const env = { PATH: process.env.PATH, BT_API_KEY: bench.privateKey };
  try {
    await c.request.getByRole('button', { name: 'Copy as cURL' }).click();
    await expect(c.request.getByRole('status').filter({ hasText: 'Copied as cURL' })).toBeVisible();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain('"BT-API-KEY: $BT_API_KEY"');
    const curled = await execute('sh', ['-c', curl], { env, timeout: 20_000 });
    expect(answer(JSON.parse(curled.stdout))).toEqual(answer(shown));

    await c.request.getByRole('button', { name: 'Copy as Node' }).click();
    await expect(c.request.getByRole('status').filter({ hasText: 'Copied as Node' })).toBeVisible();
    const script = join(scratch, 'request.js');
    writeFileSync(script, await page.evaluate(() => navigator.clipboard.readText()));
    const ran = await execute(process.execPath, [script], { env, timeout: 20_000 });
    const [status, ...body] = ran.stdout.split('\n');
    expect(status).toBe('200 OK');
    expect(answer(JSON.parse(body.join('\n')))).toEqual(answer(shown));

    // The workbench's key written in, when asked: the page says which (by its last four), and History records it.
    await c.request.getByRole('checkbox', { name: 'Include the key' }).check();
    await c.request.getByRole('button', { name: 'Copy as cURL' }).click();
    // The key is fetched from the engine before the copy, so the clipboard is read once the page says it is written.
    await expect(c.request.getByRole('status').filter({ hasText: 'written in' })).toBeVisible();
    const withKey = await page.evaluate(() => navigator.clipboard.readText());
    const written = /BT-API-KEY: (key_local_[\w-]+)/.exec(withKey)![1];
    await expect(c.request.getByRole('status').filter({ hasText: 'Copied as cURL' })).toHaveText(
      `Copied as cURL, with the workbench's key …${written.slice(-4)} written in: keep it private. History records it.`,
    );
    expect(answer(JSON.parse((await execute('sh', ['-c', withKey], { env: { PATH: process.env.PATH }, timeout: 20_000 })).stdout))).toEqual(answer(shown));
    await bench.engine.history.flush();
    const revealed = (await bench.engine.history.list(10)).find((entry) => entry.method === 'REVEAL');
    expect(revealed).toMatchObject({ workbench_page: 'composer', details: { reveal: { target: 'keys', keys: [{ key_last4: written.slice(-4) }] } } });
    expect(JSON.stringify(await bench.engine.history.list(100))).not.toContain(written);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
