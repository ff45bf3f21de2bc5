import { createServer } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { encryptLikeElements } from '../support/client-encryption';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { openWorkbench } from './support/workbench-page';

/**
 * The request panel against a real engine, a real echo destination and real Chromium: who answered (the destination
 * or the proxy itself) must be unmistakable, the compatibility warnings listed, and no plaintext ever on the page.
 */
const PAN = '4111111111111111';
let bench: TestEngine;
let pageErrors: string[];
let cardId: string;

test.beforeEach(async ({ page }) => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
  pageErrors = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  const card = await bench.call('POST', '/tokens', {
    key: bench.privateKey,
    body: { type: 'card', data: { number: PAN, expiration_month: 7, expiration_year: 2031 } },
  });
  expect(card.status).toBe(201);
  cardId = card.body.id;
});

test.afterEach(async () => {
  await bench.stop();
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function proxy(path: string, destination: string, body: unknown, headers: Record<string, string> = {}) {
  return bench.call('POST', path, { key: bench.privateKey, body, headers: { 'BT-PROXY-URL': destination, ...headers } });
}

/** Opens the request whose trace id is `traceId` from the history list. */
async function openEntry(page: Page, traceId: string) {
  const row = page.locator(`[data-testid="history-row"][data-trace="${traceId}"]`);
  await expect(row).toHaveCount(1);
  await row.getByTestId('history-path').click();
  await expect(page.getByTestId('entry-panel')).toContainText(traceId);
  return row;
}

test('a detokenized request shows where its values went, masked, and every compatibility warning', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await expect(page.getByTestId('entry-empty')).toBeVisible();

  const sent = await proxy(
    '/proxy/v1/charges?customer={{ x }}',
    bench.engine.echoUrl!,
    { number: `{{ ${cardId} | json: '$.number' }}`, amount: 1299 },
    { 'BT-TRACE-ID': 'charge-ok' },
  );
  expect(sent.status).toBe(200);
  expect(JSON.parse(sent.body.body).number).toBe(PAN);

  const row = await openEntry(page, 'charge-ok');
  await expect(row.getByTestId('history-source')).toHaveText('destination');
  await expect(row.getByTestId('history-warnings')).toHaveText('⚠ 3 warnings');

  const answer = page.getByTestId('entry-answer');
  await expect(answer).toHaveAttribute('data-source', 'destination');
  await expect(page.getByTestId('entry-answer-title')).toHaveText('Destination answered 200');
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('BT-PROXY-DESTINATION-STATUS: 200');

  const warnings = page.getByTestId('entry-warning');
  await expect(warnings).toHaveCount(3);
  await expect(warnings.nth(0)).toContainText('expressions are detokenized only in the body');
  await expect(warnings.nth(1)).toContainText('uses http');
  await expect(warnings.nth(2)).toContainText('IP address');

  await expect(page.getByTestId('entry-expressions')).toContainText(`1 · tokens ${cardId}`);
  // The request as the client sent it, its expression marked; the outbound body with the card masked.
  await expect(page.getByTestId('entry-request-body').locator('mark.expression')).toHaveText(`{{ ${cardId} | json: '$.number' }}`);
  await expect(page.getByTestId('entry-outbound-line')).toHaveText(`POST ${bench.engine.echoUrl}/v1/charges?customer={{%20x%20}}`);
  await expect(page.getByTestId('entry-outbound-body')).toHaveText('{"number":"XXXXXXXXXXXX1111","amount":1299}');
  await expect(page.getByTestId('entry-request-headers')).toContainText('BT-API-KEY');
  await expect(page.getByTestId('entry-request-headers')).not.toContainText(bench.privateKey);
  await expect(page.getByTestId('entry-response-headers')).toContainText('content-type');
  await expect(page.locator('body')).not.toContainText(PAN);
  if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/request-panel.png`, fullPage: true });

  // Plaintext only on an explicit action, and only until Hide or another request is chosen.
  await page.getByTestId('entry-reveal').click();
  await expect(page.getByTestId('entry-outbound-body')).toHaveText(`{"number":"${PAN}","amount":1299}`);
  await expect(page.getByTestId('entry-revealed-note')).toBeVisible();
  if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/revealed.png`, fullPage: true });
  await page.getByTestId('entry-hide').click();
  await expect(page.locator('body')).not.toContainText(PAN);
  await page.getByTestId('entry-reveal').click();
  await expect(page.getByTestId('entry-outbound-body')).toContainText(PAN);
  await page.locator('[data-testid="history-row"]').filter({ hasText: '/tokens' }).getByTestId('history-path').click();
  await openEntry(page, 'charge-ok');
  await expect(page.locator('body')).not.toContainText(PAN);

  // Revealed from the vault as it is now: a token deleted since cannot be.
  expect((await bench.call('DELETE', `/tokens/${cardId}`, { key: bench.privateKey })).status).toBe(204);
  await page.getByTestId('entry-reveal').click();
  await expect(page.getByTestId('entry-reveal-problem')).toContainText(`${cardId} not found`);
  await expect(page.locator('body')).not.toContainText(PAN);
  // Chromium logs the refused reveal (400) as a failed resource; nothing else may have gone wrong.
  expect(pageErrors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
});

test('a call whose BT-ENCRYPTED header was decrypted names its client encryption key, never the data', async ({ page }) => {
  const key = (await bench.call('POST', '/keys', { key: bench.managementKey, body: {} })).body;
  const jwe = await encryptLikeElements({ number: PAN, expiration_month: 7, expiration_year: 2031 }, key.public_key_pem, key.key_id);
  const encrypted = Buffer.from(JSON.stringify({ type: 'card', encrypted: jwe })).toString('base64');
  const sent = await proxy('/proxy', bench.engine.echoUrl!, { number: "{{ encrypted | json: '$.data.number' }}" }, { 'BT-ENCRYPTED': encrypted, 'BT-TRACE-ID': 'encrypted-call' });
  expect(sent.status).toBe(200);

  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  await openEntry(page, 'encrypted-call');
  await expect(page.getByTestId('entry-encryption-keys')).toHaveText(`client encryption key ${key.key_id}`);
  await expect(page.locator('body')).not.toContainText(PAN);
  if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/request-panel-encrypted.png`, fullPage: true });
  expect(pageErrors).toEqual([]);
});

test("a destination's error and the proxy's own errors never look alike", async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const card = { number: `{{ ${cardId} | json: '$.number' }}` };

  expect((await proxy('/proxy/status/500', bench.engine.echoUrl!, card, { 'BT-TRACE-ID': 'destination-500' })).status).toBe(500);
  expect((await proxy('/proxy', bench.engine.echoUrl!, { number: '{{ no-such-token }}' }, { 'BT-TRACE-ID': 'unknown-token' })).status).toBe(400);
  const closed = `http://127.0.0.1:${await closedPort()}`;
  expect((await proxy('/proxy', closed, card, { 'BT-TRACE-ID': 'closed-port' })).status).toBe(502);
  const noKey = await bench.call('POST', '/proxy', { body: card, headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'BT-TRACE-ID': 'no-key' } });
  expect(noKey.status).toBe(401);

  let row = await openEntry(page, 'destination-500');
  await expect(row.getByTestId('history-status')).toHaveText('500');
  await expect(row.getByTestId('history-source')).toHaveText('destination');
  await expect(page.getByTestId('entry-answer')).toHaveAttribute('data-source', 'destination');
  await expect(page.getByTestId('entry-answer-label')).toHaveText('destination');
  await expect(page.getByTestId('entry-answer-title')).toHaveText('Destination answered 500');

  row = await openEntry(page, 'unknown-token');
  await expect(row.getByTestId('history-source')).toHaveText('proxy error');
  await expect(page.getByTestId('entry-answer')).toHaveAttribute('data-source', 'proxy');
  await expect(page.getByTestId('entry-answer-label')).toHaveText('proxy error');
  await expect(page.getByTestId('entry-answer-title')).toHaveText('Proxy error 400');
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('no-such-token not found');
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('never left Tokenbench');
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('no BT-PROXY-DESTINATION-STATUS header');
  // It failed before forwarding: there is no outbound request and no response to show.
  await expect(page.getByTestId('entry-outbound-line')).toHaveCount(0);
  await expect(page.getByTestId('entry-response-headers')).toHaveCount(0);

  await openEntry(page, 'closed-port');
  await expect(page.getByTestId('entry-answer-title')).toHaveText('Proxy error 502');
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('could not be reached');
  await expect(page.getByTestId('entry-outbound-body')).toHaveText('{"number":"XXXXXXXXXXXX1111"}');

  if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/proxy-error.png`, fullPage: true });
  await openEntry(page, 'no-key');
  await expect(page.getByTestId('entry-answer-title')).toHaveText('Proxy error 401');
  // /proxy checks the key itself (a pre-configured proxy may do without one), so the refusal says what was missing.
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('Missing BT-API-KEY header');
  await expect(page.getByTestId('entry-answer-explanation')).toContainText('never left Tokenbench');

  await expect(page.locator('body')).not.toContainText(PAN);
  expect(pageErrors).toEqual([]);
});

test('a 100 KB body shows the part history keeps, as sent and masked, and says how much more there was; a whole one does not', async ({ page }) => {
  await openWorkbench(page, bench.engine.browserWorkbench!.url, 'History');
  const lines = Array.from({ length: 1200 }, (_, i) => ({ sku: `SKU-${i}`, description: 'a line of the order, long enough' }));
  const sent = await proxy('/proxy', bench.engine.echoUrl!, { number: `{{ ${cardId} | json: '$.number' }}`, lines }, { 'BT-TRACE-ID': 'large-body' });
  expect(sent.status).toBe(200);

  await openEntry(page, 'large-body');
  await expect(page.getByTestId('entry-request-body-cut')).toContainText(/The first 16\.0 KiB of \d+\.\d KiB/);
  await expect(page.getByTestId('entry-outbound-body-cut')).toContainText(/The first \d+\.\d KiB of \d+\.\d KiB/);
  await expect(page.getByTestId('entry-outbound-body')).toContainText('{"number":"XXXXXXXXXXXX1111","lines":[{"sku":"SKU-0"');
  await expect(page.locator('body')).not.toContainText(PAN);

  // A whole small body whose masked view is shorter than its value is not said to be cut.
  const secret = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'a long secret value', mask: '****' } });
  expect(secret.status).toBe(201);
  expect((await proxy('/proxy', bench.engine.echoUrl!, { note: `{{ ${secret.body.id} }}` }, { 'BT-TRACE-ID': 'short-mask' })).status).toBe(200);
  await openEntry(page, 'short-mask');
  // Masked when the call happened, from the value alone: a value that is no card number is written [redacted].
  await expect(page.getByTestId('entry-outbound-body')).toHaveText('{"note":"[redacted]"}');
  await expect(page.getByTestId('entry-outbound-body-cut')).toHaveCount(0);
  await expect(page.getByTestId('entry-request-body-cut')).toHaveCount(0);
  expect(pageErrors).toEqual([]);
});
