import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../../support/test-engine';
import { UI_DIR } from './paths';

/**
 * What goes wrong on a test's page from now on: uncaught errors, console errors, and any style or script the CSP
 * blocks (reported whether or not the browser logs it).
 */
export async function recordPageProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) => {
      // Where it was refused says whose it was: a script's line, or (for the browser's own doing) only the element.
      const on = event.target instanceof Element ? ` on <${event.target.localName} class="${event.target.className}">` : '';
      const from = event.sourceFile ? ` from ${event.sourceFile}:${event.lineNumber}` : ' (not from a script)';
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}${from}${on}`);
    }),
  );
  return problems;
}

/**
 * For every test of the file that calls it: a real engine serving the browser workbench, started by the test, stopped
 * after it, and the test's page watched for problems, which fail the test.
 */
export function workbenchTests() {
  let bench: TestEngine | undefined;
  let problems: string[] = [];
  test.beforeEach(async ({ page }) => {
    problems = await recordPageProblems(page);
  });
  test.afterEach(async () => {
    // Read before the engine stops: its stop cuts the page's live stream, which the browser logs.
    const seen = [...problems];
    await bench?.stop();
    bench = undefined;
    expect(seen).toEqual([]);
  });
  return {
    /** An in-memory engine with an echo destination on a free port, and the browser workbench. */
    async start(options: Parameters<typeof startTestEngine>[0] = {}): Promise<TestEngine> {
      bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR }, ...options });
      return bench;
    },
    /** Problems the test caused on purpose (a stopped engine's refused fetches) are not the page's fault. */
    forgive(pattern: RegExp): void {
      problems = problems.filter((text) => !pattern.test(text));
    },
  };
}
