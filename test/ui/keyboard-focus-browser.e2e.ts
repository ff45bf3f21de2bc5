import { expect, test, type Page } from '@playwright/test';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { UI_DIR } from './support/paths';
import { openWorkbench } from './support/workbench-page';

/**
 * Keyboard-first: on every page, Tab reaches each control in turn, and wherever the focus lands it can be seen (a
 * 2 px outline on the control, on the label that stands for a hidden input, or around the code editor it is in).
 */
let bench: TestEngine;
test.beforeAll(async () => {
  bench = await startTestEngine({ echoPort: 0, browserWorkbench: { uiDir: UI_DIR } });
  // Something on every page: a token, an open transaction with a staged write, and the requests in History.
  const token = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: '4242424242424242' } });
  const tx = await bench.call('POST', '/transactions', { key: bench.privateKey });
  await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'staged' }, headers: { 'BT-TRANSACTION-ID': tx.body.id } });
  await bench.call('GET', `/tokens/${token.body.id}`, { key: bench.privateKey });
});
test.afterAll(() => bench.stop());

/** What holds the focus after a Tab: where it is, what it is called, and whether its focus can be seen. */
interface FocusStop {
  key: string;
  name: string;
  visible: boolean;
  indicated: boolean;
}

function focusStop(page: Page): Promise<FocusStop | null> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return null;
    const outlined = (candidate: Element | null) => {
      if (!candidate) return false;
      const style = getComputedStyle(candidate);
      return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    };
    const box = element.getBoundingClientRect();
    const path: string[] = [];
    for (let node: Element | null = element; node && node !== document.body; node = node.parentElement) {
      path.unshift(`${node.tagName}${node.id ? `#${node.id}` : ''}:${Array.prototype.indexOf.call(node.parentElement?.children ?? [], node)}`);
    }
    return {
      key: path.join('>'),
      name: `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}"`,
      visible: box.width > 0 && box.height > 0,
      indicated: outlined(element) || outlined(element.closest('label')) || outlined(element.closest('.code-editor')),
    };
  });
}

for (const [title, shortcut] of [['Composer', '1'], ['Tokens', '2'], ['Transactions', '3'], ['History', '4'], ['Settings', '5']] as const) {
  test(`every stop Tab reaches on ${title} shows where the focus is`, async ({ page }) => {
    await openWorkbench(page, bench.engine.browserWorkbench!.url);
    await page.keyboard.press(`Control+${shortcut}`);
    await expect(page.getByRole('main', { name: title })).toBeVisible();
    const seen: string[] = [];
    const unseen: string[] = [];
    let again: FocusStop | null = null;
    for (let i = 0; i < 120 && !again; i += 1) {
      await page.keyboard.press('Tab');
      const stop = await focusStop(page);
      if (!stop) continue;
      if (seen.includes(stop.key)) again = stop;
      else seen.push(stop.key);
      if (!again && (!stop.visible || !stop.indicated)) unseen.push(`${stop.name}${stop.visible ? '' : ' (not on screen)'}`);
    }
    expect(seen.length, 'Tab reached the page').toBeGreaterThan(5);
    // Round the whole page and back to the first stop: no control keeps the focus to itself.
    expect(again?.key, `Tab came back to ${again?.name ?? 'nothing'} instead of the first stop`).toBe(seen[0]);
    expect(unseen, 'focus stops nobody can see').toEqual([]);
  });
}
