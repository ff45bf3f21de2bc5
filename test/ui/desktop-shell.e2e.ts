import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { METHOD_NAMES } from '../../shared/workbench/methods';
import { ROOT } from './support/paths';
import { connectionState, engineFact } from './support/workbench-page';

/** The Electron binary, when one was downloaded (electron ≥ 42 fetches it on first run, which needs internet). */
function electronBinary(): string | null {
  const pathFile = join(ROOT, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(ROOT, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

const binary = electronBinary();
// The vault needs better-sqlite3 built for Electron's ABI; `npm start` builds it there.
const nativeBinding = process.env.TOKENBENCH_NATIVE_BINDING ?? join(ROOT, '.electron-native', 'better_sqlite3.node');

test.skip(
  !binary,
  'No Electron binary (node_modules/electron/path.txt or its dist/ is missing): run `npm start` once on a machine with internet. The browser workbench tests cover the UI meanwhile.',
);
test.skip(!!binary && !existsSync(nativeBinding), `No Electron build of better-sqlite3 at ${nativeBinding}: run \`npm start\` once to build it.`);

test('the desktop window welcomes a new vault with its keys, loads the workbench, and the page sees only window.tokenbench', async () => {
  const userData = mkdtempSync(join(tmpdir(), 'tokenbench-electron-'));
  const app = await electron.launch({
    executablePath: binary!,
    args: [ROOT],
    env: { ...process.env, TOKENBENCH_USER_DATA_DIR: userData, TOKENBENCH_PORT: '0', TOKENBENCH_NATIVE_BINDING: nativeBinding },
  });
  try {
    const window = await app.firstWindow();
    // A new vault: the welcome view shows its first keys once, with no terminal needed.
    const welcome = window.getByRole('dialog', { name: 'Welcome to Tokenbench' });
    await expect(welcome.getByRole('group', { name: /^Management key/ })).toContainText(/key_local_/);
    await expect(welcome.getByRole('group', { name: /^Private key/ })).toContainText(/key_local_/);
    await welcome.getByRole('button', { name: 'I have saved the keys' }).click();
    await expect(welcome).toHaveCount(0);
    await expect(window.getByRole('heading', { name: 'Tokenbench' })).toBeVisible();
    await expect(connectionState(window)).toHaveText('live');
    await expect(engineFact(window, 'Vault')).toContainText(userData);
    const exposed = await window.evaluate(() => {
      const bridge = (globalThis as unknown as { tokenbench?: Record<string, unknown> }).tokenbench;
      return { keys: bridge ? Object.keys(bridge).sort() : null, require: typeof (globalThis as { require?: unknown }).require };
    });
    // The bridge is built from the method table: one function per method, nothing else.
    expect(exposed).toEqual({ keys: [...METHOD_NAMES].sort(), require: 'undefined' });
  } finally {
    await app.close();
    rmSync(userData, { recursive: true, force: true });
  }
});
