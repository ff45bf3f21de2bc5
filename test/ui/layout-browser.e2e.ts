import { expect, test } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { keepOpenRequests } from './support/composer-page';
import { fillEngine, layoutProblems, PAGE_TITLES, sendOne, showPage, WINDOW_SIZES } from './support/layout';
import { UI_DIR } from './support/paths';
import { openWorkbench } from './support/workbench-page';
import { recordPageProblems } from './support/workbench-tests';

/**
 * Every page at every window size the workbench is made for, in both themes: no visible control leaves the window or
 * lies under another (the rule is written out at `layoutProblems`). One engine for the file and one page per theme,
 * which visits each page at each size, so the whole file runs in well under a minute.
 */
let bench: TestEngine;
test.beforeAll(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
  await fillEngine(bench);
});
test.afterAll(() => bench.stop());

for (const colorScheme of ['light', 'dark'] as const) {
  test(`in the ${colorScheme} theme, every control of every page stays in reach at ${WINDOW_SIZES.map(({ width, height }) => `${width}x${height}`).join(', ')}`, async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const context = await browser.newContext({ colorScheme, viewport: WINDOW_SIZES[0] });
    const page = await context.newPage();
    const pageProblems = await recordPageProblems(page);
    try {
      // Thirty open requests, as users keep them, and an answer beside them.
      await keepOpenRequests(page, bench.engine.echoUrl!, 30);
      await openWorkbench(page, bench.engine.browserWorkbench!.url);
      await expect(page.locator(':root')).toHaveAttribute('data-theme', colorScheme);
      await expect(page.getByRole('tablist', { name: 'Open requests' }).getByRole('tab')).toHaveCount(30);
      await sendOne(page);
      const found: string[] = [];
      for (const size of WINDOW_SIZES) {
        await page.setViewportSize(size);
        for (const title of PAGE_TITLES) {
          await showPage(page, title);
          for (const problem of await layoutProblems(page)) found.push(`${title} at ${size.width}x${size.height}: ${problem}`);
        }
      }
      expect(found).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  });
}
