import { expect, test, type Locator, type Page } from '@playwright/test';
import { composer, keepOpenRequests } from './support/composer-page';
import { openWorkbench } from './support/workbench-page';
import { workbenchTests } from './support/workbench-tests';

/** The Composer's open requests as users keep them (ten to thirty), in the browser workbench, by its keys. */
const workbench = workbenchTests();

function openRequests(page: Page) {
  const tabs = page.getByRole('tablist', { name: 'Open requests' });
  return {
    tabs,
    all: tabs.getByRole('tab'),
    selected: tabs.getByRole('tab', { selected: true }),
    tab: (customer: string) => tabs.getByRole('tab', { name: new RegExp(`cus_${customer}/`) }),
    newRequest: page.getByRole('button', { name: 'New request', exact: true }),
    list: page.getByRole('button', { name: /^\d+ open requests$/ }),
    menu: page.getByRole('menu', { name: 'Open requests' }),
  };
}

/** Whether `words` are drawn in `element` whole: not cut off by an ellipsis or by a box around them that clips. */
function drawnWhole(element: Locator, words: string): Promise<boolean> {
  return element.evaluate((root, wanted) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent!.indexOf(wanted);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + wanted.length);
      const drawn = range.getBoundingClientRect();
      for (let box = node.parentElement; box && box !== root.parentElement; box = box.parentElement) {
        if (getComputedStyle(box).overflowX === 'visible') continue;
        const room = box.getBoundingClientRect();
        if (drawn.left < room.left - 0.5 || drawn.right > room.right + 0.5) return false;
      }
      return true;
    }
    return false;
  }, words);
}

/** The browser workbench at `size` with `count` requests kept open from the last run. */
async function openWith(page: Page, count: number, size: { width: number; height: number }) {
  const bench = await workbench.start();
  await page.setViewportSize(size);
  await keepOpenRequests(page, bench.engine.echoUrl!, count);
  await openWorkbench(page, bench.engine.browserWorkbench!.url);
  const o = openRequests(page);
  await expect(o.all).toHaveCount(count);
  return { bench, o, c: composer(page) };
}

for (const size of [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
]) {
  test(`at ${size.width}x${size.height}, thirty open requests keep to one row in their panel, and the request's controls stay on screen`, async ({ page }) => {
    const { o, c } = await openWith(page, 30, size);

    // One row: the first tab and the last at the same height, the strip inside the window.
    const first = (await o.all.first().boundingBox())!;
    const last = (await o.all.last().boundingBox())!;
    expect(Math.abs(first.y - last.y)).toBeLessThan(1);
    const strip = (await o.tabs.boundingBox())!;
    expect(strip.x + strip.width).toBeLessThanOrEqual(size.width);
    for (const control of [
      c.request.getByRole('button', { name: /^Send/ }),
      c.request.getByRole('radio', { name: 'Vault API' }),
      c.request.getByRole('textbox', { name: 'Destination URL' }),
      o.list,
      o.newRequest,
      // Beside the request where the window has room for both (a smaller one stacks them).
      ...(size.width > 1100 ? [c.response.getByRole('heading', { name: 'Response' })] : []),
    ]) {
      await expect(control).toBeInViewport({ ratio: 1 });
    }
    // The tab on show is in view, the strip scrolled to it; the first ones are out of it.
    await expect(o.selected).toHaveAccessibleName(/cus_30\//);
    await expect(o.selected).toBeInViewport({ ratio: 1 });
    // Narrow as it is, each tab shows what tells it from the others: the end of its path, drawn whole.
    expect(await drawnWhole(o.selected, 'cus_30/charges')).toBe(true);
    expect(await drawnWhole(o.all.nth(28), 'cus_29/charges')).toBe(true);
    await expect(o.all.first()).not.toBeInViewport();

    // A wheel turned over the strip moves it sideways, towards the first tabs.
    await o.tabs.hover();
    await page.mouse.wheel(0, -20_000);
    await expect(o.all.first()).toBeInViewport({ ratio: 1 });
    await expect(o.selected).not.toBeInViewport();
  });
}

test('the open requests by the keys a browser passes on: new, cycle round, close with a question, reopen; shown in tooltips', async ({ page }) => {
  const { bench, o, c } = await openWith(page, 12, { width: 1024, height: 700 });
  const destination = c.request.getByRole('textbox', { name: 'Destination URL' });
  await expect(o.newRequest).toHaveAttribute('title', /^New request \(Alt\+T\)/);
  await expect(o.newRequest).toHaveAttribute('aria-keyshortcuts', 'Alt+T');
  await expect(o.tabs.getByRole('button', { name: /^Close .*cus_12/ })).toHaveAttribute('title', 'Close (Alt+W)');
  await expect(o.list).toHaveAttribute('title', /Alt\+← and Alt\+→/);

  // A browser keeps Ctrl+T for itself; the page does not claim it.
  await page.keyboard.press('Control+t');
  await expect(o.all).toHaveCount(12);

  // Alt+T opens a blank request at the end, in view, wherever the focus is (here, in the body editor).
  await c.request.getByRole('textbox', { name: 'Request body' }).focus();
  await page.keyboard.press('Alt+t');
  await expect(o.all).toHaveCount(13);
  await expect(o.selected).toHaveText(/New request/);
  await expect(o.selected).toBeInViewport({ ratio: 1 });
  await expect(destination).toHaveValue('');

  // Alt+→ from the last goes round to the first, which comes into view; Alt+← goes back round.
  await page.keyboard.press('Alt+ArrowRight');
  await expect(o.selected).toHaveAccessibleName(/cus_01\//);
  await expect(o.selected).toBeInViewport({ ratio: 1 });
  await expect(destination).toHaveValue(`${bench.engine.echoUrl}/v1/customers/cus_01/charges`);
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(o.selected).toHaveText(/New request/);
  await page.keyboard.press('Alt+ArrowLeft');
  await expect(o.selected).toHaveAccessibleName(/cus_12\//);

  // Alt+W on a blank request closes it at once; on one with changes no file holds, it asks first.
  await page.keyboard.press('Alt+ArrowRight');
  await page.keyboard.press('Alt+w');
  await expect(o.all).toHaveCount(12);
  await expect(o.selected).toHaveAccessibleName(/cus_12\//);
  await page.keyboard.press('Alt+w');
  const question = page.getByRole('alertdialog', { name: /^Close .*cus_12\/charges\?$/ });
  await expect(question).toBeVisible();
  await expect(question.getByRole('button', { name: 'Keep it open' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toBeHidden();
  await expect(o.all).toHaveCount(12);
  await page.keyboard.press('Alt+w');
  await question.getByRole('button', { name: 'Close without saving' }).click();
  await expect(o.all).toHaveCount(11);
  await expect(o.tab('12')).toHaveCount(0);

  // Another closed from its own button, in the middle of the strip.
  await o.tab('05').click();
  await o.tabs.getByRole('button', { name: /^Close .*cus_05/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Close without saving' }).click();
  await expect(o.all).toHaveCount(10);
  await expect(o.selected).toHaveAccessibleName(/cus_06\//);

  // Alt+Shift+T brings them back, the latest closed first, each in its place with what it held.
  await page.keyboard.press('Alt+Shift+T');
  await expect(o.all).toHaveCount(11);
  await expect(o.selected).toHaveAccessibleName(/cus_05\//);
  await expect(o.all.nth(4)).toHaveAccessibleName(/cus_05\//);
  await expect(destination).toHaveValue(`${bench.engine.echoUrl}/v1/customers/cus_05/charges`);
  await page.keyboard.press('Alt+Shift+T');
  await expect(o.all).toHaveCount(12);
  await expect(o.all.last()).toHaveAccessibleName(/cus_12\//);
  await expect(o.selected).toHaveAccessibleName(/cus_12\//);
  await expect(o.selected).toBeInViewport({ ratio: 1 });
  // Nothing more to reopen: the blank request closed first was never kept.
  await page.keyboard.press('Alt+Shift+T');
  await expect(o.all).toHaveCount(12);

  // The tab list's own keys: Home and End, with the focus on a tab.
  await o.selected.focus();
  await page.keyboard.press('Home');
  await expect(o.selected).toHaveAccessibleName(/cus_01\//);
  await expect(o.selected).toBeFocused();
  await page.keyboard.press('End');
  await expect(o.selected).toHaveAccessibleName(/cus_12\//);
  await expect(o.selected).toBeFocused();
});

test('the list of every open request: a menu naming each, the unsaved ones marked, to pick one from by keyboard', async ({ page }) => {
  const { o } = await openWith(page, 30, { width: 1024, height: 700 });
  // A new blank one, which is not unsaved.
  await o.newRequest.click();
  await expect(o.list).toHaveAccessibleName('31 open requests');

  await o.list.click();
  await expect(o.list).toHaveAttribute('aria-expanded', 'true');
  const items = o.menu.getByRole('menuitemradio');
  await expect(items).toHaveCount(31);
  // The one on show is checked and has the focus; the menu fits the window and scrolls within itself.
  const current = o.menu.getByRole('menuitemradio', { checked: true });
  await expect(current).toHaveAccessibleName(/New request/);
  await expect(current).toBeFocused();
  await expect(current.getByLabel('unsaved changes')).toHaveCount(0);
  await expect(items.first().getByLabel('unsaved changes')).toBeVisible();
  const box = (await o.menu.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(700);
  expect(box.x).toBeGreaterThanOrEqual(0);

  // Escape goes back to the button; arrows and Home move; Enter shows the request, its tab in view and focused.
  await page.keyboard.press('Escape');
  await expect(o.menu).toBeHidden();
  await expect(o.list).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(current).toBeFocused();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(2)).toBeFocused();
  await expect(items.nth(2)).toHaveAccessibleName(/cus_03\/charges unsaved changes$/);
  await page.keyboard.press('Enter');
  await expect(o.menu).toBeHidden();
  await expect(o.selected).toHaveAccessibleName(/cus_03\//);
  await expect(o.selected).toBeFocused();
  await expect(o.selected).toBeInViewport({ ratio: 1 });

  // A click outside closes it.
  await o.list.click();
  await expect(o.menu).toBeVisible();
  await page.getByRole('heading', { name: 'Request', exact: true }).click();
  await expect(o.menu).toBeHidden();
});
