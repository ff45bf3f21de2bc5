import { expect, type Locator, type Page } from '@playwright/test';
import type { TestEngine } from '../../support/test-engine';
import { composer } from './composer-page';
import { openPage } from './workbench-page';

/** The window sizes the workbench is laid out for, smallest first. */
export const WINDOW_SIZES = [
  { width: 1024, height: 700 },
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

/** The pages in the navigation, in its order. */
export const PAGE_TITLES = ['Composer', 'Tokens', 'Transactions', 'History', 'Settings', 'Proxies', 'Reactors', 'Webhooks'] as const;
export type PageTitle = (typeof PAGE_TITLES)[number];

/**
 * Something on every page, as outside clients leave it: a proxy, a reactor, a webhook whose receiver is down (its
 * deliveries failing), tokens, an open transaction with a staged write, a call through the proxy, requests in History.
 */
export async function fillEngine(bench: TestEngine): Promise<void> {
  const manage = async (path: string, body: object) => expect((await bench.call('POST', path, { key: bench.managementKey, body })).status).toBe(201);
  await manage('/proxies', { name: 'charges', destination_url: `${bench.engine.echoUrl}/v1/charges` });
  await manage('/reactors', { name: 'charge', code: 'module.exports = async (req) => ({ raw: req.args });' });
  await manage('/webhooks', { name: 'receiver', url: 'http://127.0.0.1:9/hooks', events: ['token.created'] });
  for (const data of ['4242424242424242', '5555555555554444', '378282246310005']) {
    await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data } });
  }
  const tx = await bench.call('POST', '/transactions', { key: bench.privateKey });
  await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'staged' }, headers: { 'BT-TRANSACTION-ID': tx.body.id } });
  const proxied = await bench.call('POST', '/proxy/v1/customers/cus_1/charges', { key: bench.privateKey, body: { amount: 1200 }, headers: { 'BT-PROXY-URL': bench.engine.echoUrl! } });
  expect(proxied.status).toBe(200);
}

/** Sends the request on show in the Composer to the echo destination and waits for its answer. */
export async function sendOne(page: Page): Promise<void> {
  const c = composer(page);
  await c.body('{"amount": 1200, "currency": "usd"}');
  await c.send();
  await c.expectOutcome('destination', 'The destination answered');
}

/** Goes to a page and leaves it as a user at work does: one of its items open (kept from the last visit). */
export async function showPage(page: Page, title: PageTitle): Promise<void> {
  await openPage(page, title);
  const main = page.getByRole('main', { name: title });
  const open = async (shown: Locator, choose: Locator) => {
    // The page keeps what was open on it from one visit to the next.
    if (!(await shown.isVisible())) await choose.click();
    await expect(shown).toBeVisible();
  };
  switch (title) {
    case 'Composer':
      return expect(main.getByRole('region', { name: 'Response' }).getByRole('status', { name: 'Outcome' })).toBeVisible();
    case 'Tokens':
      return open(main.getByRole('tab', { name: 'Fields' }), main.getByRole('listbox', { name: 'Tokens' }).getByRole('option').first());
    case 'Transactions':
      return open(
        main.getByRole('table', { name: 'Operations' }),
        main.getByRole('region', { name: 'Transactions', exact: true }).getByRole('button', { name: /^[0-9a-f]{8}$/ }).first(),
      );
    case 'History':
      return open(main.getByRole('heading', { level: 2, name: /^POST \/proxy/ }), main.getByRole('button', { name: /^\/proxy\/v1\/customers/ }).first());
    case 'Settings':
      return open(main.getByRole('region', { name: 'Tokenbench backend · private' }), main.getByRole('button', { name: 'Tokenbench backend', exact: true }));
    case 'Proxies':
      return open(main.getByRole('form', { name: 'Proxy “charges”' }), main.getByRole('button', { name: 'charges', exact: true }));
    case 'Reactors':
      return open(main.getByRole('form', { name: 'Reactor “charge”' }), main.getByRole('button', { name: 'charge', exact: true }));
    case 'Webhooks':
      return open(main.getByRole('form', { name: 'Webhook “receiver”' }), main.getByRole('button', { name: 'receiver', exact: true }));
  }
}

/**
 * What is wrong with the layout on show, one sentence each. The rule, for every visible interactive element (by tag
 * or role: links, buttons, fields, tabs, options, menu items, focusable separators, the code editor):
 *
 * - The window itself never scrolls, and the page never scrolls sideways: only containers meant to scroll do (a list,
 *   a pane, the tab strip), so a user never has to find a second scrollbar or pan the whole page to reach a control.
 * - Scrolled into view as the browser does it for focus (`scrollIntoView`, nearest edge), the element is then shown
 *   whole, within the window and within every box around it that clips; only an element larger than the smallest of
 *   those boxes may be cut, and then it fills that box. A box that clips without a scrollbar (overflow hidden) must
 *   not have had to move: a user could not have scrolled it.
 * - At the centre of what is shown of it, the element itself (or something inside it) is hit: nothing lies over it.
 * - Its own words are shown whole: an empty field's hint, a select's chosen option (beside the arrow it draws, some
 *   20 px), a button's label. A value typed into a field may run on: the field scrolls it. A label cut on purpose (a
 *   long path in a list) ends in an ellipsis and is whole in its tooltip.
 *
 * Runs in the page, so it reads the layout as the browser made it; it moves scroll positions as it goes.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const CONTROLS = [
      'a[href]',
      'button',
      'input:not([type="hidden"])',
      'select',
      'textarea',
      'summary',
      '[contenteditable="true"]',
      '[tabindex]:not([tabindex="-1"])',
      ...['button', 'link', 'textbox', 'searchbox', 'combobox', 'tab', 'checkbox', 'radio', 'switch', 'option', 'menuitem', 'menuitemradio'].map(
        (role) => `[role="${role}"]`,
      ),
    ].join(',');
    const problems: string[] = [];
    const describe = (element: Element) => {
      const name = element.getAttribute('aria-label') ?? (element as HTMLElement).innerText ?? '';
      const role = element.getAttribute('role') ?? element.localName;
      return `${role} "${name.replace(/\s+/g, ' ').trim().slice(0, 48)}"`;
    };
    const root = document.documentElement;
    if (root.scrollWidth > innerWidth + 1 || root.scrollHeight > innerHeight + 1) {
      problems.push(`the window itself scrolls: its content is ${root.scrollWidth}x${root.scrollHeight}`);
    }
    const main = document.querySelector('main');
    if (main && main.scrollWidth > main.clientWidth + 1) problems.push(`the page scrolls sideways: ${main.scrollWidth} px wide in ${main.clientWidth}`);

    const controls = [...document.querySelectorAll<HTMLElement>(CONTROLS)].filter((element) => {
      if (!element.checkVisibility({ visibilityProperty: true })) return false;
      const box = element.getBoundingClientRect();
      // Read by screen readers only (a 1 px clipped box), or a radio lying unseen over its label (which is its box).
      return box.width > 1 && box.height > 1;
    });
    const measure = document.createElement('canvas').getContext('2d')!;
    for (const element of controls) {
      const style = getComputedStyle(element);
      const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      measure.font = style.font;
      const hint = element instanceof HTMLInputElement && element.value === '' ? element.placeholder : '';
      const chosen = element instanceof HTMLSelectElement ? (element.selectedOptions[0]?.text ?? '') : '';
      if (hint && measure.measureText(hint).width > room + 1) problems.push(`${describe(element)} shows its hint "${hint}" cut`);
      if (chosen && measure.measureText(chosen).width > room - 20 + 1) problems.push(`${describe(element)} shows its choice "${chosen}" cut`);
      const ellipsized = style.textOverflow === 'ellipsis' && element.title === element.textContent;
      if (element instanceof HTMLButtonElement && element.scrollWidth > element.clientWidth + 1 && !ellipsized) problems.push(`${describe(element)} shows its label cut`);
    }
    for (const element of controls) {
      element.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const box = element.getBoundingClientRect();
      let [left, top, right, bottom] = [box.left, box.top, box.right, box.bottom];
      let [roomX, roomY] = [innerWidth, innerHeight];
      for (let around = element.parentElement; around && around !== root; around = around.parentElement) {
        const style = getComputedStyle(around);
        const clipsX = style.overflowX !== 'visible';
        const clipsY = style.overflowY !== 'visible';
        if (!clipsX && !clipsY) continue;
        const frame = around.getBoundingClientRect();
        const [x, y] = [frame.left + around.clientLeft, frame.top + around.clientTop];
        if (clipsX) [left, right, roomX] = [Math.max(left, x), Math.min(right, x + around.clientWidth), Math.min(roomX, around.clientWidth)];
        if (clipsY) [top, bottom, roomY] = [Math.max(top, y), Math.min(bottom, y + around.clientHeight), Math.min(roomY, around.clientHeight)];
        const fixed = ['hidden', 'clip'];
        if ((fixed.includes(style.overflowX) && around.scrollLeft > 0) || (fixed.includes(style.overflowY) && around.scrollTop > 0)) {
          problems.push(`${describe(element)} is cut off by a box that cannot be scrolled (${around.localName}.${around.className})`);
        }
      }
      [left, top, right, bottom] = [Math.max(left, 0), Math.max(top, 0), Math.min(right, innerWidth), Math.min(bottom, innerHeight)];
      const [shownX, shownY] = [right - left, bottom - top];
      if (shownX < Math.min(box.width, roomX) - 1 || shownY < Math.min(box.height, roomY) - 1) {
        const seen = shownX > 0 && shownY > 0 ? `only ${Math.round(shownX)}x${Math.round(shownY)} of its ${Math.round(box.width)}x${Math.round(box.height)} can be shown` : 'cannot be brought into view';
        problems.push(`${describe(element)} ${seen} (at ${Math.round(box.left)},${Math.round(box.top)})`);
        continue;
      }
      const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
      if (hit && hit !== element && !element.contains(hit)) problems.push(`${describe(element)} lies under ${describe(hit)}`);
    }
    return [...new Set(problems)];
  });
}
