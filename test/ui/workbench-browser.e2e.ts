import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';

let bench: TestEngine;
let pageErrors: string[];

test.beforeEach(async ({ page }) => {
  bench = await startTestEngine({ inMemory: true, workbench: { uiDir: UI_DIR } });
  // A CSP violation or a script error shows up here; the workbench must run clean under its strict policy.
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
});

test.afterEach(async () => {
  await bench.stop();
});

async function openWorkbench(page: Page, url: string) {
  const response = await page.goto(url);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
  // The same policy is in the page itself, for Electron, which loads it from a file.
  await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute('content', /script-src 'self'/);
}

test('shows the engine status, then a new token and its request appear live', async ({ page }) => {
  await openWorkbench(page, bench.engine.workbench!.url);
  await expect(page.getByRole('heading', { name: 'Tokenbench' })).toBeVisible();
  await expect(page.getByTestId('connection-state')).toHaveText('live');
  await expect(page.getByTestId('status-url')).toHaveText(bench.url);
  await expect(page.getByTestId('status-vault')).toHaveText('in memory (nothing is kept)');
  await expect(page.getByTestId('status-application-count')).toHaveText('2');
  await expect(page.getByTestId('status-token-count')).toHaveText('0');
  await expect(page.getByTestId('history-empty')).toBeVisible();
  // The session left the address bar.
  expect(new URL(page.url()).hash).toBe('');

  const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'e2e secret value' } });
  expect(created.status).toBe(201);

  await expect(page.getByTestId('status-token-count')).toHaveText('1');
  const row = page.getByTestId('history-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('history-method')).toHaveText('POST');
  await expect(row.getByTestId('history-path')).toHaveText('/tokens');
  await expect(row.getByTestId('history-status')).toHaveText('201');
  await expect(page.locator('body')).not.toContainText('e2e secret value');

  // A reload keeps the session (this tab's storage) and lists the history from the engine.
  await page.reload();
  await expect(page.getByTestId('connection-state')).toHaveText('live');
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  expect(pageErrors).toEqual([]);
});

test('a wrong session shows a clear error instead of data', async ({ page }) => {
  await openWorkbench(page, `${bench.url}/ui/#session=not-this-runs-session`);
  await expect(page.getByTestId('connection-error')).toContainText('session');
  await expect(page.getByTestId('connection-error')).toContainText('tokenbench serve');
  await expect(page.getByTestId('connection-state')).toHaveText('not connected');
  await expect(page.getByTestId('status-token-count')).toHaveCount(0);
});

test('a page opened without any session says how to get one', async ({ page }) => {
  await openWorkbench(page, `${bench.url}/ui/`);
  await expect(page.getByTestId('connection-error')).toContainText('without a workbench session');
});
