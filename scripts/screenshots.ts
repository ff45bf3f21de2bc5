/**
 * `npm run screenshots`: the README's pictures of the workbench, made from the current build against a real engine
 * and its echo destination, in both themes, so they stay current. Writes docs/screenshots/*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { startEngine, type Engine } from '../electron/engine';

const ROOT = join(__dirname, '..');
const OUT = join(ROOT, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 760 };
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

type Scene = (page: Page, engine: Engine) => Promise<void>;

const composer = (page: Page) => page.getByRole('region', { name: 'Request', exact: true });
const outcome = (page: Page) => page.getByRole('region', { name: 'Response' }).getByRole('status', { name: 'Outcome' });

async function send(page: Page, destination: string, body: string): Promise<void> {
  await composer(page).getByRole('textbox', { name: 'Destination URL' }).fill(destination);
  await composer(page).getByRole('textbox', { name: 'Request body' }).fill(body);
  await composer(page).getByRole('button', { name: /^Send/ }).click();
  await outcome(page).waitFor();
}

/** What each picture shows, from a fresh engine with an empty vault. */
const SCENES: Record<string, Scene> = {
  'composer-destination': async (page) => {
    await page.getByRole('button', { name: 'Start with a test card' }).click();
    await page.getByText('Created a test card token').waitFor();
    await composer(page).getByRole('button', { name: /^Send/ }).click();
    await outcome(page).getByText('The destination answered').waitFor();
  },
  'composer-proxy-error': async (page, engine) => {
    await send(page, `${engine.echoUrl}/v1/charges`, '{\n  "card_number": "{{ 8f1c9d2e-4b7a-4c3e-9f10-2a3b4c5d6e7f | json: \'$.number\' }}"\n}');
    await outcome(page).getByText('The proxy refused the request').waitFor();
    await outcome(page).getByRole('button', { name: /Show .* in the body/ }).click();
  },
  'composer-not-reached': async (page, engine) => {
    await composer(page).getByRole('textbox', { name: 'Destination URL' }).fill(`${engine.echoUrl}/v1/charges`);
    await composer(page).getByRole('textbox', { name: 'Request body' }).fill('{ "amount": 1200 }');
    await engine.stop();
    await composer(page).getByRole('button', { name: /^Send/ }).click();
    await outcome(page).getByText('The service could not be reached').waitFor();
  },
};

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    for (const [name, scene] of Object.entries(SCENES)) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const engine = await startEngine({ port: 0, echoPort: 0, dataDir: null, log: () => undefined, browserWorkbench: { uiDir: join(ROOT, 'out', 'renderer') } });
        const page = await browser.newPage({ viewport: VIEWPORT, colorScheme });
        try {
          await page.goto(engine.browserWorkbench!.url);
          await page.getByRole('status', { name: 'Connection' }).getByText('live').waitFor();
          await scene(page, engine);
          // Let the split, fonts and focus settle: the picture shows what a user sees.
          await page.waitForTimeout(200);
          const file = join(OUT, `${name}-${colorScheme}.png`);
          await page.screenshot({ path: file });
          console.log(`wrote ${file}`);
        } finally {
          await page.close();
          await engine.stop();
        }
      }
    }
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
