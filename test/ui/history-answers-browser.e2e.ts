import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { freePort } from '../support/free-port';
import type { TestEngine } from '../support/test-engine';
import { historyPage } from './support/history-page';
import { openPage, openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * The destination's answer in History, turned on in Settings: kept masked, shown masked with nothing to reveal, and
 * exported masked. A destination on loopback sends the card number back in every shape it can.
 */
const PAN = '4000056655665556';
const groups = (separator: string) => PAN.match(/.{4}/g)!.join(separator);
const PLAINTEXT = [PAN, groups(' '), groups('-')];
let bench: TestEngine;
const workbench = workbenchTests();

let destination: http.Server;
let destinationUrl: string;
test.beforeAll(async () => {
  destination = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { pan } = JSON.parse(Buffer.concat(chunks).toString()) as { pan: string };
      if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(pan + 'x'.repeat(8 * 1024));
      const spaced = pan.match(/.{4}/g)!;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'ch_1', card: { number: pan, spaced: spaced.join(' '), dashed: spaced.join('-') }, message: `charged ${pan} for 12.00`, status: 'succeeded' }));
    });
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
});
test.afterAll(() => destination.close());

async function charge(path: string, trace: string) {
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  return bench.call('POST', `/proxy${path}`, {
    key: bench.privateKey,
    body: { pan: `{{ ${card.body.id} }}` },
    headers: { 'BT-PROXY-URL': destinationUrl, 'BT-TRACE-ID': trace },
  });
}

async function expectNoPlaintextOn(page: Page) {
  const html = await page.content();
  for (const plain of PLAINTEXT) expect(html).not.toContain(plain);
}

test("turned on in Settings, the destination's answer shows in History masked, with nothing to reveal, and exports masked", async ({ page }) => {
  bench = await workbench.start();
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'Settings');
  const settings = page.getByRole('region', { name: 'History', exact: true });
  const keep = settings.getByRole('checkbox', { name: 'Keep destinations’ answers' });
  await expect(keep).not.toBeChecked();
  await expect(settings).toContainText('Off by default');
  await keep.check();
  await settings.getByRole('spinbutton', { name: /Answer bound/ }).fill('4096');
  await settings.getByRole('button', { name: 'Apply' }).click();
  await expect(settings.getByRole('status').filter({ hasText: 'Applied and saved in the vault' })).toBeVisible();
  await expect(settings).toContainText('Now answers up to 4.0 KiB are kept, larger ones as a note of their size.');

  expect((await charge('/v1/charges', 'charge')).status).toBe(201);
  expect((await charge('/big', 'big')).status).toBe(200);
  await openPage(page, 'History');
  await historyPage(page).open('/proxy/v1/charges');
  const answer = page.getByRole('region', { name: 'Answer' });
  await expect(answer).toContainText('"dashed": "XXXXXXXXXXXX5556"');
  await expect(answer).toContainText('charged XXXXXXXXXXXX5556 for 12.00');
  await expect(answer).toContainText('Masked before it was kept: 4 values. History never held this answer in plaintext, so there is nothing to reveal.');
  await expect(answer.getByRole('button', { name: /Reveal/ })).toHaveCount(0);
  await expectNoPlaintextOn(page);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export this entry as HAR' }).click()]);
  const har = readFileSync((await download.path())!, 'utf8');
  for (const plain of PLAINTEXT) expect(har).not.toContain(plain);
  expect((JSON.parse(har) as { log: { entries: { response: { content: { text: string } } }[] } }).log.entries[0].response.content.text).toContain('XXXXXXXXXXXX5556');

  await historyPage(page).open('/proxy/big');
  await expect(answer).toContainText('Not kept: 8,208 bytes, over the 4,096-byte bound.');
  await expectNoPlaintextOn(page);
});

test('with answers off, History says where to keep them', async ({ page }) => {
  bench = await workbench.start();
  expect((await charge('/v1/charges', 'charge')).status).toBe(201);
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await historyPage(page).open('/proxy/v1/charges');
  const answer = page.getByRole('region', { name: 'Answer' });
  await expect(answer).toContainText('History keeps no answer bodies unless Settings asks it to');
  await answer.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('main', { name: 'Settings' })).toBeVisible();
});

test("History's detail says which expressions went out empty, and why a destination was not reached", async ({ page }) => {
  bench = await workbench.start();
  const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
  const typo = `{{ ${card.body.id} | json: '$.numbr' }}`;
  const sent = (destinationAt: string, body: unknown, trace: string) =>
    bench.call('POST', '/proxy/v1/charges', { key: bench.privateKey, body, headers: { 'BT-PROXY-URL': destinationAt, 'BT-TRACE-ID': trace } });
  expect((await sent(destinationUrl, { pan: `{{ ${card.body.id} }}`, extra: typo }, 'empty')).status).toBe(201);
  expect((await sent(`http://127.0.0.1:${await freePort()}`, { pan: `{{ ${card.body.id} }}` }, 'refused')).status).toBe(502);

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const h = historyPage(page);
  // The proxy's facts are a description list, which has no role or name of its own: its test id finds it.
  const facts = h.entry.getByTestId('entry-proxy-facts');
  await h.openTrace('empty');
  await expect(facts).toContainText(`Sent empty${typo} wrote nothing, so the destination got no value there.`);
  await h.openTrace('refused');
  await expect(facts).toContainText('Not reachedconnection refused: nothing listened there');
  await expect(facts).not.toContainText('Sent empty');
});
