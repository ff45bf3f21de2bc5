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

/** A call to the engine's API as its first private application, as an outside client makes it. */
async function call(engine: Engine, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ id: string }> {
  const response = await fetch(`${engine.url}${path}`, {
    method,
    headers: { 'BT-API-KEY': engine.bootstrapKeys!.private.key, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // A commit or rollback may answer with no body.
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as { id: string };
}

/** A vault with some of every kind, through the API as a back end would fill it. */
async function fillVault(engine: Engine): Promise<void> {
  const tokens = Array.from({ length: 60 }, (_, i) => {
    if (i % 3 === 0) return { type: 'card', data: generateCard(CARD_BRANDS[i % CARD_BRANDS.length]), metadata: { order: `o-${1000 + i}` } };
    if (i % 3 === 1) return { type: 'bank', data: generateBankAccount(), metadata: { customer: `c-${i % 7}` } };
    return { type: 'social_security_number', data: generateSsn() };
  });
  await call(engine, 'POST', '/tokenize', tokens);
}

/** A proxy with a code transform and response transforms, to the echo destination, and a card to send through it. */
async function proxyAndCard(engine: Engine): Promise<{ key: string; card: string }> {
  const code = `module.exports = async function (req) {
  const { body, headers } = req.args;
  console.log('charging', body.amount, 'for', req.configuration.merchant);
  return { body: { ...body, merchant: req.configuration.merchant }, headers: { ...headers, 'X-Merchant': req.configuration.merchant } };
};`;
  const proxy = (await call(
    engine,
    'POST',
    '/proxies',
    {
      name: 'charges',
      destination_url: `${engine.echoUrl}/v1`,
      configuration: { merchant: 'acme' },
      request_transforms: [{ type: 'code', code }],
      response_transforms: [{ type: 'mask', matcher: 'chase_stratus_pan', replacement: 'X' }, { type: 'append_header', options: { location: 'X-Proxied', value: 'yes' } }],
    },
    { 'BT-API-KEY': engine.bootstrapKeys!.management.key },
  )) as unknown as { key: string };
  const card = await call(engine, 'POST', '/tokens', { type: 'card_number', data: '4242424242424242' });
  return { key: proxy.key, card: card.id };
}

/** The scenes that show a new vault's welcome view; every other one starts with its keys taken, as a user has. */
const WELCOMING = new Set(['welcome']);

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
  'token-intents': async (page, engine) => {
    const checkout = (await call(engine, 'POST', '/applications', { name: 'checkout', type: 'public', permissions: ['token-intent:create'] }, {
      'BT-API-KEY': engine.bootstrapKeys!.management.key,
    })) as { id: string; key?: string };
    const asBrowser = { 'BT-API-KEY': checkout.key! };
    await call(engine, 'POST', '/token-intents', { type: 'card', data: generateCard('visa') }, asBrowser);
    await call(engine, 'POST', '/token-intents', { type: 'bank', data: generateBankAccount() }, asBrowser);
    await call(engine, 'POST', '/token-intents', { type: 'card', data: generateCard('mastercard') }, asBrowser);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('tab', { name: /^Intents/ }).click();
    await page.getByRole('button', { name: /^Open token intent/ }).first().click();
    await page.getByRole('form', { name: 'Convert into a token' }).waitFor();
  },
  transactions: async (page, engine) => {
    const existing = await call(engine, 'POST', '/tokens', { type: 'card_number', data: '5555555555554444' });
    await call(engine, 'POST', '/transactions').then(({ id }) => call(engine, 'POST', `/transactions/${id}/commit`));
    await call(engine, 'POST', '/transactions').then(({ id }) => call(engine, 'POST', `/transactions/${id}/rollback`));
    const open = await call(engine, 'POST', '/transactions');
    const inside = { 'BT-TRANSACTION-ID': open.id };
    await call(engine, 'POST', '/tokens', { type: 'card_number', data: '4242424242424242' }, inside);
    await call(engine, 'PATCH', `/tokens/${existing.id}`, { metadata: { order: 'A-1001' } }, { ...inside, 'content-type': 'application/merge-patch+json' });
    await page.keyboard.press('Control+3');
    await page.getByRole('button', { name: open.id.slice(0, 8), exact: true }).click();
    await page.getByRole('table', { name: 'Operations' }).waitFor();
  },
  settings: async (page) => {
    await page.keyboard.press('Control+5');
    await page.getByRole('button', { name: 'Tokenbench backend' }).click();
    await page.getByRole('region', { name: 'Tokenbench backend · private' }).waitFor();
  },
  'proxies-try': async (page, engine) => {
    const { card } = await proxyAndCard(engine);
    await page.keyboard.press('Control+6');
    await page.getByRole('button', { name: 'charges', exact: true }).click();
    const tryPanel = page.getByRole('region', { name: 'Try', exact: true });
    await tryPanel.getByRole('textbox', { name: 'Path after /proxy' }).fill('/charges');
    await tryPanel.getByRole('textbox', { name: 'Sample request body' }).fill(`{"amount": 1200, "number": "{{ ${card} }}"}`);
    await tryPanel.getByRole('button', { name: 'Send through the proxy' }).click();
    await tryPanel.getByRole('list', { name: 'Pipeline steps' }).scrollIntoViewIfNeeded();
  },
  'history-trace': async (page, engine) => {
    const { key, card } = await proxyAndCard(engine);
    await call(engine, 'POST', '/proxy/charges', { amount: 1200, number: `{{ ${card} }}` }, { 'BT-PROXY-KEY': key });
    await page.keyboard.press('Control+4');
    await page.getByRole('region', { name: 'Requests', exact: true }).getByRole('button', { name: '/proxy/charges' }).click();
    await page.getByRole('list', { name: 'Pipeline steps' }).scrollIntoViewIfNeeded();
  },
  webhooks: async (page, engine) => {
    const management = { 'BT-API-KEY': engine.bootstrapKeys!.management.key };
    await call(engine, 'POST', '/webhooks', { name: 'local app', url: `${engine.echoUrl}/hooks`, events: ['token.created', 'token.updated', 'proxy.invoked'] }, management);
    // Nothing listens on the discard port: its deliveries fail and wait for a retry.
    await call(engine, 'POST', '/webhooks', { name: 'staging receiver', url: 'http://127.0.0.1:9/hooks', events: ['token.created'] }, management);
    await page.keyboard.press('Control+8');
    await page.getByRole('button', { name: 'local app', exact: true }).click();
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    for (let sent = 1; sent <= 2; sent++) {
      await deliveries.getByRole('button', { name: 'Send test event' }).click();
      await deliveries.getByRole('row').filter({ hasText: 'delivered' }).nth(sent - 1).waitFor();
    }
    await deliveries.evaluate((panel) => panel.scrollIntoView({ block: 'start' }));
  },
  welcome: async (page) => {
    await page.getByRole('dialog', { name: 'Welcome to Tokenbench' }).getByRole('group', { name: /^Private key/ }).waitFor();
  },
};

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    // Named scenes only, when given (`npm run screenshots -- tokens`); every scene otherwise.
    const only = process.argv.slice(2);
    for (const [name, scene] of Object.entries(SCENES).filter(([named]) => only.length === 0 || only.includes(named))) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const engine = await startEngine({ port: 0, echoPort: 0, dataDir: null, log: () => undefined, browserWorkbench: { uiDir: join(ROOT, 'out', 'renderer') } });
        if (!WELCOMING.has(name)) await engine.workbench.takeWelcome({});
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
