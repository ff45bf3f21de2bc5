import { expect, test } from '@playwright/test';
import { composer } from './support/composer-page';
import { openPage, openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * A window too small for the panels side by side stacks them: what the user waits for comes into view instead of
 * waiting below the fold, and a screen reader hears it. (Every control in reach at every size: layout-browser.e2e.ts.)
 */
const workbench = workbenchTests();
const SMALL = { width: 1024, height: 700 };

test('at 1024x700 the answer comes into view after Send, and is said to a screen reader, each time', async ({ page }) => {
  const bench = await workbench.start();
  await page.setViewportSize(SMALL);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const c = composer(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges`);
  await c.body('{"amount": 1200}');
  // Stacked under the request, the Response starts out of sight.
  await expect(c.response.getByRole('heading', { name: 'Response' })).not.toBeInViewport();

  await c.send();
  await c.expectOutcome('destination', 'The destination answered');
  await expect(c.outcome).toBeInViewport({ ratio: 1 });
  await expect(c.response.getByRole('heading', { name: 'Response' })).toBeInViewport();
  await expect(c.response.getByRole('status').filter({ hasText: /^Answer:/ })).toHaveText('Answer: The destination answered, 200 OK.');

  // Back up to the body, and sent again from the keyboard: down to the answer again.
  const body = c.request.getByRole('textbox', { name: 'Request body' });
  await body.scrollIntoViewIfNeeded();
  await expect(c.outcome).not.toBeInViewport();
  await body.press('Control+Enter');
  await expect(c.outcome).toBeInViewport({ ratio: 1 });
  await expect(c.response.getByRole('status').filter({ hasText: /^Answer:/ })).toHaveText('Answer: The destination answered, 200 OK.');
});

test("at 1024x700 a request chosen in History brings its detail into view, and the dates' filters sit side by side", async ({ page }) => {
  const bench = await workbench.start();
  for (let i = 0; i < 14; i += 1) await bench.call('GET', `/tokens?page=${i}`, { key: bench.privateKey });
  await page.setViewportSize(SMALL);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const main = page.getByRole('main', { name: 'History' });
  const detail = main.getByRole('heading', { level: 2, name: /^GET \/tokens\?page=13$/ });

  await main.getByRole('button', { name: '/tokens?page=13', exact: true }).click();
  await expect(detail).toBeInViewport({ ratio: 1 });

  // Scrolled back to the list, the next one chosen comes up too.
  await main.getByRole('button', { name: '/tokens?page=12', exact: true }).scrollIntoViewIfNeeded();
  await main.getByRole('button', { name: '/tokens?page=12', exact: true }).click();
  await expect(main.getByRole('heading', { level: 2, name: /^GET \/tokens\?page=12$/ })).toBeInViewport({ ratio: 1 });
});

for (const size of [SMALL, { width: 1440, height: 900 }]) {
  test(`at ${size.width}x${size.height} History's "From" and "To" dates share a row, each named above its field`, async ({ page }) => {
    const bench = await workbench.start();
    await page.setViewportSize(size);
    await openWorkbench(page, bench.engine.browserWorkbench!.url);
    await openPage(page, 'History');
    await page.getByRole('button', { name: 'More filters' }).click();
    const from = (await page.getByRole('textbox', { name: 'From', exact: true }).boundingBox())!;
    const to = (await page.getByRole('textbox', { name: 'To', exact: true }).boundingBox())!;
    expect(Math.abs(from.y - to.y), 'the To field on the From field’s row').toBeLessThan(1);
    // Where the word itself is drawn (its label holds the field too).
    const word = await page.getByRole('textbox', { name: 'To', exact: true }).evaluate((field) => {
      const range = document.createRange();
      range.selectNodeContents(field.closest('label')!.firstChild!);
      return range.getBoundingClientRect().bottom;
    });
    expect(word, 'the word To above its field, not beside it').toBeLessThanOrEqual(to.y + 1);
    expect(to.x + to.width).toBeLessThanOrEqual(size.width);
  });
}
