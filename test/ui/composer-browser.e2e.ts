import { expect, test, type Page } from '@playwright/test';
import { closedPort } from '../proxy/support/loopback';
import type { TestEngine } from '../support/test-engine';
import { composer } from './support/composer-page';
import { workbenchTests } from './support/workbench-tests';
import { openWorkbench } from './support/workbench-page';

/** The Composer and its Response in Chromium, against the real engine and its echo destination. */
const PAN = '4242424242424242';
let bench: TestEngine;
const workbench = workbenchTests();

async function startBench(options: Parameters<typeof workbench.start>[0] = {}) {
  bench = await workbench.start(options);
}

async function cardToken(type = 'card_number', data: unknown = PAN, key = bench.privateKey): Promise<string> {
  const created = await bench.call('POST', '/tokens', { key, body: { type, data } });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function open(page: Page) {
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  await expect(page.getByRole('main', { name: 'Composer' })).toBeVisible();
  return composer(page);
}

test('first run: from an empty vault to a detokenized request in three actions', async ({ page }) => {
  await startBench();
  const c = await open(page);
  await c.response.getByRole('button', { name: 'Start with a test card' }).click();
  await expect(c.request.getByRole('status')).toContainText('Created a test card token');
  await expect(c.request.getByRole('textbox', { name: 'Destination URL' })).toHaveValue(`${bench.engine.echoUrl}/v1/charges`);
  await c.send();
  await c.expectOutcome('Destination', 'The destination answered');
  await expect(c.outcome).toContainText('200 OK');
  // The echo destination shows what it received: the card number, detokenized.
  expect(await c.rawBody()).toContain(PAN);
  // Nowhere else on the page: the request shows expressions, never the value.
  await c.response.getByRole('tab', { name: 'Sent' }).click();
  await expect(c.response.getByTestId('composer-sent-body')).toContainText('{{');
  await expect(c.response.getByTestId('entry-outbound-body')).not.toContainText(PAN);
  await expect(c.request).not.toContainText(PAN);
});

test('composes a JSON body and a form body, sent with Ctrl+Enter, detokenized on the way out', async ({ page }) => {
  await startBench();
  const id = await cardToken();
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/v1/charges?currency=eur`);
  await expect(c.request.getByRole('tab', { name: /Query/ })).toContainText('1');
  await c.body(`{"pan": "{{ ${id} }}", "amount": 10}`);
  await c.request.getByRole('textbox', { name: 'Request body' }).press('Control+Enter');
  await c.expectOutcome('Destination', 'The destination answered');
  const echoed = JSON.parse(await c.rawBody());
  expect(echoed).toMatchObject({ method: 'POST', path: '/v1/charges', query: { currency: 'eur' } });
  expect(JSON.parse(echoed.body)).toEqual({ pan: PAN, amount: 10 });

  await c.bodyType('Form');
  await c.body(`pan={{ ${id} }}&amount=10`);
  // Outside the editor too.
  await c.request.getByRole('textbox', { name: 'Destination URL' }).press('Control+Enter');
  await expect.poll(async () => JSON.parse(await c.rawBody()).body).toBe(`pan=${PAN}&amount=10`);
  expect(JSON.parse(await c.rawBody()).headers['content-type']).toBe('application/x-www-form-urlencoded');
});

test("a destination's 5xx is the destination's, with its status and body as received", async ({ page }) => {
  await startBench();
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/status/503`);
  await c.body('{}');
  await c.send();
  await c.expectOutcome('Destination', 'The destination failed');
  await expect(c.outcome).toContainText('503 Service Unavailable');
  await expect(c.outcome).not.toContainText('Proxy error');
  await c.response.getByRole('tab', { name: /Headers/ }).click();
  await expect(c.response.getByTestId('composer-response-headers')).toContainText('BT-PROXY-DESTINATION-STATUS');
});

test('each failure of the proxy itself says who failed, whether the destination saw it, and what to do', async ({ page }) => {
  await startBench({ proxyTimeoutMs: 1000 });
  const id = await cardToken();
  const noUse = await bench.call('POST', '/applications', {
    key: bench.managementKey,
    body: { name: 'reader only', type: 'private', permissions: ['token:read'] },
  });
  const c = await open(page);

  // 400: a token that does not exist, marked in the editor.
  await c.destination(bench.engine.echoUrl!);
  await c.body('{"pan": "{{ 00000000-0000-4000-8000-000000000000 }}"}');
  await c.send();
  await c.expectOutcome('Proxy error', 'The proxy refused the request');
  await expect(c.outcome).toContainText('400 Bad Request');
  await expect(c.outcome).toContainText('did not receive it');
  await expect(c.outcome).toContainText('What to do: Use a token that exists');
  await c.outcome.getByRole('button', { name: /Show .* in the body/ }).click();
  await expect(c.request.locator('.cm-culprit')).toHaveText('00000000-0000-4000-8000-000000000000');

  // 403: an application without token:use.
  await c.sendAs('reader only · private');
  await c.body(`{"pan": "{{ ${id} }}"}`);
  await c.send();
  await c.expectOutcome('Proxy error', 'The proxy refused the request');
  await expect(c.outcome).toContainText('403 Forbidden');
  await expect(c.outcome).toContainText('Grant token:use');
  await expect(c.outcome).toContainText('“reader only”');
  expect(noUse.status).toBe(201);

  // 502: nothing listens at the destination.
  await c.sendAs('Tokenbench backend · private');
  await c.destination(`http://127.0.0.1:${await closedPort()}/charges`);
  await c.send();
  await c.expectOutcome('Proxy error', 'The proxy could not complete the request');
  await expect(c.outcome).toContainText('502 Bad Gateway');
  await expect(c.outcome).toContainText('could not be reached');
  await expect(c.outcome).toContainText('What to do: Nothing accepted a connection at 127.0.0.1:');

  // 408: the destination takes longer than the proxy waits.
  await c.destination(`${bench.engine.echoUrl}/delay/3000`);
  await c.send();
  await c.expectOutcome('Proxy error', 'The proxy could not complete the request');
  await expect(c.outcome).toContainText('408 Request Timeout');
  await expect(c.outcome).toContainText('did not answer within 1000 ms');
  await expect(c.outcome).not.toContainText('Destination answered');
});

test('a refused connection gets only the advice that helps it, and a remote target not reached is named with what to check there', async ({ page }) => {
  await startBench();
  const id = await cardToken();
  const c = await open(page);
  const port = await closedPort();
  await c.destination(`http://127.0.0.1:${port}/charges`);
  await c.body(`{"pan": "{{ ${id} }}"}`);
  await c.send();
  await c.expectOutcome('Proxy error', 'The proxy could not complete the request');
  await expect(c.outcome).toContainText('502 Bad Gateway');
  await expect(c.outcome).toContainText(`What to do: Nothing accepted a connection at 127.0.0.1:${port}: start the destination there, or correct the destination URL.`);
  // No token is at fault: none is offered.
  await expect(c.outcome.getByRole('button', { name: /in the body/ })).toHaveCount(0);

  const remotePort = await closedPort();
  await c.request.getByText('Remote targets').click();
  await c.request.getByRole('textbox', { name: 'Name' }).fill('staging');
  await c.request.getByRole('textbox', { name: 'Base URL' }).fill(`http://127.0.0.1:${remotePort}`);
  await c.request.getByLabel('API key').fill('key_test_staging_0123456789abcdef');
  await c.request.getByRole('button', { name: 'Add remote target' }).click();
  await c.send();
  await c.expectOutcome('Not reached', '“staging” could not be reached');
  await expect(c.outcome).toContainText(`POST http://127.0.0.1:${remotePort}/proxy/charges`);
  await expect(c.outcome).toContainText(
    `What to do: Nothing accepted a connection at 127.0.0.1:${remotePort}: start the service there, or correct the base URL of “staging” (http://127.0.0.1:${remotePort}) in Remote targets.`,
  );
  await expect(c.outcome).not.toContainText('Tokenbench is still running');
});

test('cancel stops a request in flight, with Escape or the button', async ({ page }) => {
  await startBench();
  const c = await open(page);
  await c.destination(`${bench.engine.echoUrl}/delay/20000`);
  await c.body('{}');
  await c.send();
  await expect(c.response.getByRole('status', { name: 'Outcome' })).toContainText('Waiting for the answer');
  await page.keyboard.press('Escape');
  await c.expectOutcome('Cancelled', 'Cancelled before the answer was complete');

  await c.send();
  await c.request.getByRole('button', { name: /^Cancel/ }).click();
  await c.expectOutcome('Cancelled', 'Cancelled before the answer was complete');
});

test('a vault API request, its answer and its problem details', async ({ page }) => {
  await startBench();
  const c = await open(page);
  await c.kind('Vault API');
  await c.path('/tokens');
  await c.body(`{"type": "card_number", "data": "${PAN}"}`);
  await c.send();
  await c.expectOutcome('Vault API', 'The API answered 201 Created');
  expect(JSON.parse(await c.rawBody())).toMatchObject({ type: 'card_number', data: 'XXXXXXXXXXXX4242' });

  await c.body('{"type": "card_number", "data": "1234"}');
  await c.send();
  await c.expectOutcome('Vault API', 'The API answered 400 Bad Request');
  await expect(c.outcome).toContainText('data');
  // The answer links to the request in History.
  await c.outcome.getByRole('link', { name: 'Open in History' }).click();
  await expect(page.getByRole('main', { name: 'History' })).toBeVisible();
  await expect(page.getByTestId('entry-panel')).toContainText('POST /tokens');
  await expect(page.getByTestId('entry-answer')).toContainText('API answered 400');
});

test('the workbench key is listed, revoked, and made anew on the next send', async ({ page }) => {
  await startBench();
  const c = await open(page);
  await expect(c.request).toContainText('No workbench key yet');
  await c.kind('Vault API');
  await c.method('GET');
  await c.path('/tokens');
  await c.bodyType('None');
  await c.send();
  await c.expectOutcome('Vault API', 'The API answered 200 OK');
  const key = c.request.locator('.workbench-key code');
  await expect(key).toBeVisible();
  const first = await key.getAttribute('title');
  const listed = await bench.call('GET', `/applications/${bench.engine.bootstrapKeys!.private.application_id}/keys`, { key: bench.managementKey });
  expect(listed.body.map((k: { id: string }) => k.id)).toContain(first);

  await c.request.getByRole('button', { name: 'Revoke workbench key' }).click();
  await expect(c.request).toContainText('No workbench key yet');
  await c.send();
  await c.expectOutcome('Vault API', 'The API answered 200 OK');
  await expect(key).toBeVisible();
  expect(await key.getAttribute('title')).not.toBe(first);
});

test('a stopped engine: the service could not be reached, with what was tried', async ({ page }) => {
  await startBench();
  const c = await open(page);
  await c.destination(bench.engine.echoUrl!);
  await c.body('{}');
  const url = bench.url;
  await bench.stop();
  await c.send();
  await c.expectOutcome('Not reached', 'The service could not be reached');
  await expect(c.outcome).toContainText(`POST ${url}/proxy`);
  await expect(c.outcome).toContainText('Cannot reach the Tokenbench engine');
  // The connection loss is expected here; the browser logs the refused fetches.
  workbench.forgive(/Failed to load resource|ERR_CONNECTION_REFUSED/);
});
