import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { connectionState, engineFact } from './support/workbench-page';

// The link `npm start` opens a browser with: a one-time code in the fragment, which the page trades for the session.
let bench: TestEngine;
test.beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
});
test.afterEach(() => bench.stop());

test('a launch link opens the workbench live, leaves the address bar, and a reload stays live', async ({ page }) => {
  const link = bench.engine.browserWorkbench!.launchUrl();
  await page.goto(link);
  await expect(connectionState(page)).toHaveText('live');
  await expect(engineFact(page, 'API')).toHaveText(bench.url);
  expect(page.url()).not.toContain('launch');
  expect(new URL(page.url()).hash).toBe('#/composer');

  await page.reload();
  await expect(connectionState(page)).toHaveText('live');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('a link opened a second time says it was used, and how to get a new one', async ({ page, browser }) => {
  const link = bench.engine.browserWorkbench!.launchUrl();
  await page.goto(link);
  await expect(connectionState(page)).toHaveText('live');

  const other = await browser.newPage();
  try {
    await other.goto(link);
    await expect(other.getByRole('alert')).toContainText('This workbench link was already used');
    await expect(other.getByRole('alert')).toContainText('Run “npm start” again for a new link');
    await expect(connectionState(other)).toHaveText('not connected');
    await expect(engineFact(other, 'Tokens')).toHaveCount(0);
    expect(other.url()).not.toContain('launch');
  } finally {
    await other.close();
  }
});

test("a code that is not this run's says so", async ({ page }) => {
  await page.goto(`${bench.url}/ui/#launch=${'A'.repeat(43)}`);
  await expect(page.getByRole('alert')).toContainText('not from the running Tokenbench');
  await expect(connectionState(page)).toHaveText('not connected');
});
