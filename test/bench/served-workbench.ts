import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { launchChromium } from './page-measures';
import { startTokenbench } from './servers';

export interface ServedWorkbench {
  url: string;
  /** The new vault's first private key. */
  privateKey: string;
  workbenchUrl: string;
  browser: Browser;
  /** Closes the browser, stops the service and removes its vault; a second call does nothing. */
  stop(): Promise<void>;
}

/** The built CLI serving the built workbench on a new vault in a temporary folder, and a Chromium to open it in. */
export async function startServedWorkbench(name: string): Promise<ServedWorkbench> {
  const dataDir = mkdtempSync(join(tmpdir(), `tokenbench-${name}-`));
  let stopped = false;
  const parts: { service?: Awaited<ReturnType<typeof startTokenbench>>; browser?: Browser } = {};
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await parts.browser?.close();
    await parts.service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    parts.service = await startTokenbench(dataDir);
    const { url, privateKey, workbenchUrl } = parts.service.info;
    if (!privateKey || !workbenchUrl) throw new Error('serve printed no private key or no workbench address (is the UI built?)');
    parts.browser = await launchChromium();
    return { url, privateKey, workbenchUrl, browser: parts.browser, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
