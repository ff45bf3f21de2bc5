import { expect, test, type Page } from '@playwright/test';
import type { TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { workbenchTests } from './support/workbench-tests';
import { openWorkbench } from './support/workbench-page';

/**
 * The Composer's answer from a destination that repeats what the proxy detokenized (the echo destination does): the
 * values masked on screen until the user reveals them, for that one answer, for a while, each reveal in History.
 */
const PAN = '4242424242424242';
const MASK = 'XXXXXXXXXXXX4242';
let bench: TestEngine;
const workbench = workbenchTests();

/** Every text the page holds: its DOM, and the values of its inputs (which the DOM does not carry). */
async function pageText(page: Page): Promise<string> {
  const inputs = await page.locator('input, textarea').evaluateAll((fields) => fields.map((field) => (field as HTMLInputElement).value));
  return `${await page.content()}\n${inputs.join('\n')}`;
}

async function screenshots(page: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  const response = composer(page).response;
  await response.getByRole('radio', { name: 'Pretty' }).check();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const viewport of [
      { width: 1024, height: 700 },
      { width: 1440, height: 900 },
    ]) {
      await page.setViewportSize(viewport);
      // In a narrow window the Response sits below the Request.
      await response.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${dir}/${name}-${colorScheme}-${viewport.width}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test("the echo's card number is masked in Response → Body until revealed, for that answer only, and each reveal is in History", async ({ page }) => {
  await page.clock.install();
  bench = await workbench.start();
  const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  expect(created.status).toBe(201);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body(`{"pan": "{{ ${created.body.id} }}", "amount": 10}`);
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');

  // The echo shows the body it received, the card number as the token's mask: nowhere in the page is the number.
  expect(JSON.parse(JSON.parse(await c.rawBody()).body)).toEqual({ pan: MASK, amount: 10 });
  await expect(c.response).toContainText('1 value the proxy detokenized is masked in this answer');
  expect(await pageText(page)).not.toContain(PAN);
  await screenshots(page, 'answer-masked');

  const reveal = c.response.getByRole('button', { name: 'Reveal values' });
  await reveal.click();
  await expect.poll(async () => JSON.parse(JSON.parse(await c.rawBody()).body)).toEqual({ pan: PAN, amount: 10 });
  await expect(c.response).toContainText(/Plaintext, as the destination sent it · hides in \d+ s/);
  await screenshots(page, 'answer-revealed');
  await c.response.getByRole('button', { name: 'Hide' }).click();
  expect(JSON.parse(JSON.parse(await c.rawBody()).body).pan).toBe(MASK);
  expect(await pageText(page)).not.toContain(PAN);

  // A reveal shows one answer: the next one comes masked. From the keyboard, Hide takes the focus Reveal had.
  await reveal.focus();
  await page.keyboard.press('Enter');
  await expect(c.response.getByRole('button', { name: 'Hide' })).toBeFocused();
  await expect.poll(async () => JSON.parse(JSON.parse(await c.rawBody()).body).pan).toBe(PAN);
  await c.send();
  await expect.poll(async () => JSON.parse(JSON.parse(await c.rawBody()).body).pan).toBe(MASK);
  expect(await pageText(page)).not.toContain(PAN);

  // And it hides itself after 30 seconds.
  await reveal.click();
  await expect.poll(async () => JSON.parse(JSON.parse(await c.rawBody()).body).pan).toBe(PAN);
  await page.clock.runFor(31_000);
  await expect.poll(async () => JSON.parse(JSON.parse(await c.rawBody()).body).pan).toBe(MASK);
  expect(await pageText(page)).not.toContain(PAN);

  // Each reveal is in History by the request's id, never the value.
  await bench.engine.history.flush();
  const entries = await bench.engine.history.list(100);
  const sent = entries.filter((entry) => entry.path === '/proxy/v1/charges' && entry.kind !== 'workbench').map((entry) => entry.id);
  const reveals = entries.filter((entry) => entry.method === 'REVEAL');
  expect(reveals.map((entry) => (entry.details as { reveal: { entry_id: string } }).reveal.entry_id)).toEqual([sent[0], sent[1], sent[1]]);
  expect(JSON.stringify(entries)).not.toContain(PAN);
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'History' }).click();
  await page.getByRole('combobox', { name: 'Show' }).selectOption('reveals');
  await expect(page.getByTestId('history-row')).toHaveCount(3);
  await page.getByTestId('history-path').first().click();
  await expect(page.getByTestId('entry-answer')).toContainText('Revealed in the workbench');
  await expect(page.getByTestId('entry-answer')).toContainText(`the values in the answer to request ${sent[0]}`);
  expect(await pageText(page)).not.toContain(PAN);
});
