import { expect, type Page } from '@playwright/test';

/** The Composer as a user drives it: by role and accessible name. */
export function composer(page: Page) {
  const request = page.getByRole('region', { name: 'Request', exact: true });
  const response = page.getByRole('region', { name: 'Response' });
  const outcome = response.getByRole('status', { name: 'Outcome' });
  return {
    request,
    response,
    outcome,
    kind: (name: 'Through the proxy' | 'Vault API') => request.getByRole('radio', { name }).check(),
    method: (method: string) => request.getByRole('combobox', { name: 'Method' }).selectOption(method),
    destination: (url: string) => request.getByRole('textbox', { name: 'Destination URL' }).fill(url),
    path: (path: string) => request.getByRole('textbox', { name: 'Path' }).fill(path),
    body: (text: string) => request.getByRole('textbox', { name: 'Request body' }).fill(text),
    bodyType: (label: 'JSON' | 'Form' | 'Text' | 'XML' | 'None') => request.getByRole('combobox', { name: 'Body' }).selectOption({ label }),
    sendAs: (label: string) => request.getByRole('combobox', { name: 'Send as' }).selectOption({ label }),
    send: () => request.getByRole('button', { name: /^Send/ }).click(),
    /** The response body's text as the Raw view shows it. */
    async rawBody() {
      await response.getByRole('radio', { name: 'Raw' }).check();
      return response.getByLabel('Response body', { exact: true }).innerText();
    },
    async expectOutcome(label: string, title: string | RegExp) {
      await expect(outcome).toContainText(label, { ignoreCase: true });
      await expect(outcome).toContainText(title);
    },
  };
}

/**
 * `count` requests open in the Composer, each to its own destination, as the workbench keeps them across a restart
 * (written where it keeps them before the page loads, much quicker than opening each); the last is on show. Their
 * bodies are `body(n)` for the n-th, empty unless given.
 */
export async function keepOpenRequests(page: Page, echoUrl: string, count: number, body: (n: number) => string = () => ''): Promise<void> {
  const tabs = Array.from({ length: count }, (_, i) => ({
    id: `kept-${i + 1}`,
    draft: {
      kind: 'proxy',
      method: i % 4 === 0 ? 'GET' : 'POST',
      target: `${echoUrl}/v1/customers/cus_${String(i + 1).padStart(2, '0')}/charges`,
      headers: [],
      service: { transaction: '', trace: '', keepAlive: '', connection: '' },
      bodyMode: 'json',
      body: body(i + 1),
    },
    savedAs: null,
    result: null,
  }));
  const kept = { state: { tabs, activeTab: tabs[count - 1].id, draft: tabs[count - 1].draft, applicationId: null, targetId: null, savedAs: null }, version: 0 };
  await page.addInitScript((value) => {
    if (!localStorage.getItem('tokenbench.composer')) localStorage.setItem('tokenbench.composer', value);
  }, JSON.stringify(kept));
}
