/**
 * `npm run screenshots`: the README's pictures of the workbench, made from the current build against a real engine
 * and its echo destination, in both themes, so they stay current. Writes docs/screenshots/*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { startEngine, type Engine } from '../electron/engine';
import { CARD_BRANDS, generateBankAccount, generateCard, generateSsn } from '../shared/test-data/generators';

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

/** A vault with some of every kind, through the API as a back end would fill it. */
async function fillVault(engine: Engine): Promise<void> {
  const tokens = Array.from({ length: 60 }, (_, i) => {
    if (i % 3 === 0) return { type: 'card', data: generateCard(CARD_BRANDS[i % CARD_BRANDS.length]), metadata: { order: `o-${1000 + i}` } };
    if (i % 3 === 1) return { type: 'bank', data: generateBankAccount(), metadata: { customer: `c-${i % 7}` } };
    return { type: 'social_security_number', data: generateSsn() };
  });
  const res = await fetch(`${engine.url}/tokenize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'BT-API-KEY': engine.bootstrapKeys!.private.key },
    body: JSON.stringify(tokens),
  });
  if (res.status !== 200) throw new Error(`POST /tokenize answered ${res.status}: ${await res.text()}`);
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
  tokens: async (page, engine) => {
    await fillVault(engine);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Tokens' }).click();
    const list = page.getByRole('listbox', { name: 'Tokens' });
    await list.getByRole('option').first().waitFor();
    await list.getByRole('option').filter({ hasText: 'card' }).nth(1).click();
    await page.getByRole('tab', { name: 'Fields' }).waitFor();
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
          // A fresh vault first shows its keys, once: the pictures are of the workbench after that.
          await page.getByRole('button', { name: 'I have saved the keys' }).click();
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
