import { rmSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { tempDir } from '../support/test-engine';
import { goToSettings, settingsSection } from './support/settings-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * A shared engine (bound beyond loopback, issue 42): Settings shows the folders its operator fixed, and offers no way
 * to choose another, in Chromium against a real engine.
 */
const workbench = workbenchTests();

test('beyond loopback, Settings shows the folders as fixed by the operator, with no chooser', async ({ page }) => {
  const proxiesDir = tempDir('tokenbench-reach-ui-proxies-');
  try {
    const bench = await workbench.start({ host: '0.0.0.0', proxiesDir });
    await openWorkbench(page, bench.engine.browserWorkbench!.url);
    await goToSettings(page);

    const saved = settingsSection(page, 'Saved requests folder');
    const savedFolder = saved.getByRole('group', { name: 'Saved requests folder' });
    await expect(savedFolder).toContainText(bench.engine.collectionsFolder);
    await expect(savedFolder).toContainText('Fixed by the operator with the start flag --host 0.0.0.0');
    await expect(saved.getByRole('textbox', { name: 'Folder' })).toHaveCount(0);
    await expect(saved.getByRole('button', { name: 'Use this folder' })).toHaveCount(0);

    const proxies = settingsSection(page, 'Proxies folder');
    const proxiesFolder = proxies.getByRole('group', { name: 'Proxies folder' });
    await expect(proxiesFolder).toContainText(proxiesDir);
    await expect(proxiesFolder).toContainText(`Fixed by the operator with the start flag --proxies ${proxiesDir}`);
    await expect(proxies.getByRole('textbox', { name: 'Proxies folder path' })).toHaveCount(0);
    await expect(proxies.getByRole('button', { name: 'Load proxies from this folder' })).toHaveCount(0);
  } finally {
    rmSync(proxiesDir, { recursive: true, force: true });
  }
});
