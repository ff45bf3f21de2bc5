import { expect, test, type Page } from '@playwright/test';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { goToWebhooks, webhooksPage } from './support/webhooks-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/**
 * The Webhooks page in Chromium against a real engine delivering to a real receiver on loopback: what the receiver
 * gets and answers is what the page shows, live.
 */
const workbench = workbenchTests();
let receiver: WebhookReceiver | undefined;
test.afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** A new engine (one retry, a minute after a failure), its workbench open on Webhooks, with none yet. */
async function start(page: Page, answer: number) {
  const bench = await workbench.start({ webhookRetryDelaysMs: [60_000] });
  receiver = await startWebhookReceiver(() => answer);
  receiver.useKey((await bench.call('GET', '/keys/webhooks.v1.key')).text);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await goToWebhooks(page);
  const webhooks = webhooksPage(page);
  await expect(webhooks.list.getByText('No webhooks yet')).toBeVisible();
  return { bench, webhooks, receiver };
}

test('create a webhook to a receiver, send a test event, see it delivered live with its body, redeliver it', async ({ page }) => {
  const { webhooks, receiver } = await start(page, 200);
  await webhooks.create('receiver', receiver.url);
  await webhooks.said('Created webhook “receiver”.');
  await expect(webhooks.list.getByRole('row', { name: /receiver/ })).toContainText('enabled');

  await webhooks.deliveries.getByRole('button', { name: 'Send test event' }).click();
  const [delivered] = await receiver.waitFor(1);
  expect(delivered.rawVerified).toBe(true);
  const first = webhooks.rows().first();
  await expect(first).toContainText('delivered');
  await expect(first).toContainText('200');
  await expect(first.getByRole('cell').nth(2)).toHaveText('1');
  // The body as sent, in the body viewer: the event the receiver got.
  const detail = webhooks.deliveries.getByRole('region', { name: /^Delivery of test / });
  await detail.getByRole('radio', { name: 'Raw' }).check();
  await expect(detail.getByLabel('Body as sent', { exact: true })).toContainText(`"id":"${delivered.body.event.id}"`);

  await webhooks.deliveries.getByRole('button', { name: `Redeliver test event ${delivered.body.event.id.slice(0, 8)}` }).click();
  await webhooks.said(`Queued test event ${delivered.body.event.id.slice(0, 8)} again.`);
  const again = await receiver.waitFor(2, (d) => d.body.event.id === delivered.body.event.id);
  expect(again[1].rawVerified).toBe(true);
  await expect(webhooks.rows()).toHaveCount(2);
  await expect(webhooks.rows().first()).toContainText('delivered');
});

test('a failing receiver: the error and the next retry are shown; the signing key and snippets are there', async ({ page }) => {
  const { webhooks, receiver } = await start(page, 503);
  await webhooks.create('failing', receiver.url);
  await webhooks.deliveries.getByRole('button', { name: 'Send test event' }).click();
  await receiver.waitFor(1);
  const first = webhooks.rows().first();
  await expect(first).toContainText(/retry in 0:[0-5]\d/);
  await expect(first).toContainText('503');
  const detail = webhooks.deliveries.getByRole('region', { name: /^Delivery of test / });
  await expect(detail).toContainText('the receiver answered 503.');
  await expect(detail).toContainText(/Tried again at .*; redeliver to try now\./);

  const key = page.getByRole('region', { name: 'Signing key' });
  await expect(key.getByLabel('Public key', { exact: true })).toContainText('-----BEGIN PUBLIC KEY-----');
  const verify = page.getByRole('region', { name: 'Verify a delivery' });
  await expect(verify.getByLabel('Node snippet', { exact: true })).toContainText('RSA_PKCS1_PSS_PADDING');
  await verify.getByRole('radio', { name: 'cURL + openssl' }).check();
  await expect(verify.getByLabel('cURL + openssl snippet', { exact: true })).toContainText('/keys/webhooks.v1.key');
});

test("a URL the destination policy refuses is said at the field, in the engine's words", async ({ page }) => {
  const { bench, webhooks } = await start(page, 200);
  await webhooks.create('loop', `${bench.url}/hooks`);
  const url = webhooks.editor.getByRole('textbox', { name: 'URL', exact: true });
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  await expect(url).toBeFocused();
  await expect(webhooks.editor).toContainText('url is refused by the destination policy');
  // The refusal is the engine's 400, which the browser logs.
  workbench.forgive(/status of 400 \(Bad Request\)/);
});
