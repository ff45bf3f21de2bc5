import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { BUILT_CLI, UI_DIR } from './support/paths';
import { connectionState, engineFact, openPage } from './support/workbench-page';

let bench: TestEngine;
let pageErrors: string[];

test.beforeEach(async ({ page }) => {
  bench = await startTestEngine({ inMemory: true, browserWorkbench: { uiDir: UI_DIR } });
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

/** A policy's directives by name, e.g. `script-src` → `'self'`. */
function directives(policy: string | null | undefined): Map<string, string> {
  return new Map((policy ?? '').split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(' ')]));
}

/** Scripts only from the app itself, styles from it or with this page load's nonce, and nothing `unsafe-*`. */
function expectStrictPolicy(policy: string | null | undefined, nonce?: string) {
  const byName = directives(policy);
  expect(byName.get('script-src')).toBe("'self'");
  if (nonce) expect(byName.get('style-src')).toBe(`'self' 'nonce-${nonce}'`);
  else expect(byName.get('style-src')).toMatch(/^'self' 'nonce-[A-Za-z0-9+/=_-]{16,}'$/);
  expect(policy).not.toContain('unsafe-');
}

async function openWorkbench(page: Page, url: string) {
  const response = await page.goto(url);
  const header = response?.headers()['content-security-policy'];
  expectStrictPolicy(header);
  // The same policy is in the page itself, for Electron, which loads it from a file, with the same per-load nonce.
  const nonce = /'nonce-([^']+)'/.exec(header!)![1];
  expectStrictPolicy(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content'), nonce);
}

test('shows the engine status, then a new token and its request appear live', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await expect(page.getByRole('heading', { name: 'Tokenbench' })).toBeVisible();
  await expect(connectionState(page)).toHaveText('live');
  await openPage(page, 'History');
  await expect(engineFact(page, 'API')).toHaveText(bench.url);
  await expect(engineFact(page, 'Vault')).toHaveText('in memory (nothing is kept)');
  await expect(engineFact(page, 'Applications')).toHaveText('2');
  await expect(engineFact(page, 'Tokens')).toHaveText('0');
  await expect(page.getByTestId('history-empty')).toBeVisible();
  // The session left the address bar, which now names the page.
  expect(new URL(page.url()).hash).toBe('#/history');

  const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'e2e secret value' } });
  expect(created.status).toBe(201);

  await expect(engineFact(page, 'Tokens')).toHaveText('1');
  const row = page.getByTestId('history-row');
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId('history-method')).toHaveText('POST');
  await expect(row.getByTestId('history-path')).toHaveText('/tokens');
  await expect(row.getByTestId('history-status')).toHaveText('201');
  await expect(page.locator('body')).not.toContainText('e2e secret value');

  // A reload keeps the session (this tab's storage) and lists the history from the engine.
  await page.reload();
  await expect(connectionState(page)).toHaveText('live');
  await expect(page.getByTestId('history-row')).toHaveCount(1);
  expect(pageErrors).toEqual([]);
});

test('a wrong session shows a clear error and the sign-in form instead of data', async ({ page }) => {
  await openWorkbench(page, `${bench.url}/ui/#session=not-this-runs-session`);
  await expect(page.getByRole('alert')).toContainText('session');
  await expect(page.getByRole('alert')).toContainText('tokenbench serve');
  await expect(page.getByRole('textbox', { name: 'Workbench credential' })).toBeFocused();
  await expect(engineFact(page, 'Tokens')).toHaveCount(0);
});

test('a page opened without any session says how to get one, beside the sign-in form', async ({ page }) => {
  await openWorkbench(page, `${bench.url}/ui/`);
  await expect(page.getByRole('form', { name: 'Sign in to Tokenbench' })).toContainText('without a workbench session');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('the production build of serve runs its history thread and serves the workbench beside it', async ({ page }) => {
  // The bundle puts the engine in a shared chunk, so this is the path the desktop app takes to its history worker.
  const serve = spawn(process.execPath, [BUILT_CLI, 'serve', '--in-memory', '--port', '0', '--echo-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    serve.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const started = new Promise<RegExpExecArray[]>((resolve) => {
      serve.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = [/Tokenbench is serving (\S+)/, /Workbench: (\S+)/, /private key \(token:\*\):\s+(\S+)/].map((pattern) => pattern.exec(out));
        if (found.every(Boolean)) resolve(found as RegExpExecArray[]);
      });
    });
    const [[, url], [, workbenchUrl], [, key]] = await Promise.race([
      started,
      once(serve, 'exit').then(() => Promise.reject(new Error(`serve exited: ${out}`))),
    ]);
    await openWorkbench(page, workbenchUrl);
    await expect(connectionState(page)).toHaveText('live');
    // A new vault: the keys serve printed are shown in the workbench too, once.
    const welcome = page.getByRole('dialog', { name: 'Welcome to Tokenbench' });
    await expect(welcome).toContainText(key);
    await welcome.getByRole('button', { name: 'I have saved the keys' }).click();
    await openPage(page, 'History');
    const created = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'BT-API-KEY': key },
      body: JSON.stringify({ type: 'token', data: 'built cli secret' }),
    });
    expect(created.status).toBe(201);
    // The welcome's showing of the first keys is a reveal History records, beside the token's request.
    const rows = page.getByTestId('history-path');
    await expect(rows).toHaveText(['/tokens', '/applications']);
    // After a reload the rows come from the history thread's store, not from the live feed.
    await page.reload();
    await expect(rows).toHaveText(['/tokens', '/applications']);
    expect(pageErrors).toEqual([]);
  } finally {
    serve.kill('SIGTERM');
    if (serve.exitCode === null) await once(serve, 'exit');
  }
});
