import { existsSync } from 'node:fs';
import { chromium, defineConfig } from '@playwright/test';

/**
 * Playwright's own browsers cannot be downloaded on these machines (never `npx playwright install`): use Debian's. Its
 * headless shell first, which is what Playwright itself runs headless tests in: the same Chromium without the full
 * browser's windows and compositor, so each test's page costs far less CPU than in the full browser's new headless mode.
 */
function chromiumExecutable(): string {
  const chosen = process.env.CHROMIUM_PATH;
  if (chosen) {
    if (existsSync(chosen)) return chosen;
    throw new Error(`CHROMIUM_PATH is ${chosen}, which does not exist: point it at a Chromium or Chrome binary, or unset it and \`apt-get install chromium\`.`);
  }
  const debian = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path));
  if (debian) return debian;
  const bundled = chromium.executablePath();
  if (existsSync(bundled)) return bundled;
  throw new Error(
    'No Chromium for the browser tests: install one with `apt-get install chromium-headless-shell` or `apt-get install chromium` (Debian), or set CHROMIUM_PATH to a Chromium or Chrome binary.',
  );
}

export default defineConfig({
  testDir: 'test/ui',
  // *.e2e.ts, so vitest (test/**/*.test.ts) never collects these.
  testMatch: '*.e2e.ts',
  outputDir: 'test-results/playwright',
  globalSetup: './test/ui/support/build-renderer.ts',
  // Two: in the headless shell one test's engine and page keep about one core busy, so a second worker uses the other.
  workers: 2,
  forbidOnly: !!process.env.CI,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: 'list',
  projects: [
    {
      name: 'browser',
      testMatch: /-browser\.e2e\.ts$/,
      use: {
        browserName: 'chromium',
        // Recording a trace of every test (to keep the failed ones') costs about a third of the run's CPU, most of it in
        // the browser: to see a failure step by step, run its file again with `--trace retain-on-failure`.
        trace: 'off',
        launchOptions: {
          executablePath: chromiumExecutable(),
          // Playwright adds --no-sandbox and its own temporary profile itself.
          args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
        },
      },
    },
    { name: 'electron', testMatch: 'desktop-shell.e2e.ts' },
  ],
});
