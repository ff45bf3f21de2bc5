/**
 * The Composer with thirty open requests, as users keep them, against the built CLI serving the built workbench, in
 * Chromium: switching between them by their key and typing in a body, with the renderer main thread's tasks from a
 * performance trace. The target (issue 38): no main-thread task over 50 ms while doing either.
 */
import type { Browser, Page } from '@playwright/test';
import { keepOpenRequests } from '../ui/support/composer-page';
import { percentile } from './load';
import { browserSuiteResult, longestTasks, round, timeInPage, traced, verdict, type Task } from './page-measures';
import type { SuiteResult } from './report';
import { startServedWorkbench } from './served-workbench';

export interface OpenRequestsBenchOptions {
  /** Rounds of switching through every open request and of typing bursts. */
  rounds: number;
  log(line: string): void;
}

const OPEN_REQUESTS = 30;
const LONG_TASK_MS = 50;
const BURST = ', "note": "typed in the body"';
const KEY_DELAY_MS = 40;
/** Never sent anywhere: the tabs only show it. */
const DESTINATION = 'https://api.example.com';
const VIEWPORT = { width: 1440, height: 900 };

const onShow = (page: Page) => page.getByRole('tablist', { name: 'Open requests' }).getByRole('tab', { selected: true });

/** The n-th request's body: a charge of a few dozen lines naming the card token by an expression, as users write them. */
function chargeBody(n: number, token: string): string {
  const lines = Array.from({ length: 30 }, (_, i) => ({ sku: `sku-${n}-${i}`, quantity: (i % 3) + 1, amount: 100 * (i + n) }));
  return JSON.stringify({ amount: 1200 * n, currency: 'usd', card: { number: `{{ ${token} | json: '$.number' }}` }, lines }, null, 2);
}

/** Page source: the key the browser workbench cycles its open requests by, pressed where the focus is. */
const PRESS_NEXT = `document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', code: 'ArrowRight', altKey: true, bubbles: true, cancelable: true }))`;
/** Page source: the open request `n` on show, its destination in the request's field. */
const showing = (n: number) =>
  `document.querySelector('[role=tab][aria-selected=true]')?.id === 'open-request-kept-${n}' && document.querySelector('input[aria-label="Destination URL"]')?.value.includes('/cus_${String(n).padStart(2, '0')}/')`;

interface Measured {
  switchMs: number[];
  switchTasks: Task[];
  typingTasks: Task[];
  keys: number;
}

/** Every open request in turn by Alt+→, then a burst typed into the body on show, `rounds` times, each under a trace. */
async function measure(browser: Browser, page: Page, rounds: number, log: (line: string) => void): Promise<Measured> {
  const measured: Measured = { switchMs: [], switchTasks: [], typingTasks: [], keys: 0 };
  const body = page.getByRole('region', { name: 'Request', exact: true }).getByRole('textbox', { name: 'Request body' });
  for (let round = 1; round <= rounds; round++) {
    log(`open-requests: round ${round} of ${rounds}`);
    const { tasks: switching } = await traced(browser, page, async () => {
      for (let step = 1; step <= OPEN_REQUESTS; step++) measured.switchMs.push(await timeInPage(page, PRESS_NEXT, showing(step)));
    });
    measured.switchTasks.push(...switching);
    await body.focus();
    await page.keyboard.press('Control+End');
    const { tasks: typing } = await traced(browser, page, () => page.keyboard.type(BURST, { delay: KEY_DELAY_MS }));
    measured.typingTasks.push(...typing);
    measured.keys += BURST.length;
    // Back to where the round started: the last request on show, the focus on its tab.
    for (let i = 0; i < BURST.length; i++) await page.keyboard.press('Backspace');
    await onShow(page).focus();
  }
  return measured;
}

/** A row of the table: what was done, how often, its latency if timed, the main thread's tasks meanwhile, the target. */
function row(what: string, count: number, latency: number[] | null, tasks: Task[]): (string | number)[] {
  const sorted = latency ? [...latency].sort((a, b) => a - b) : [];
  const long = tasks.filter((task) => task.wallMs > LONG_TASK_MS);
  const longest = longestTasks(tasks);
  return [
    what,
    count,
    latency ? round(percentile(sorted, 50)) : '',
    latency ? round(sorted[sorted.length - 1]) : '',
    tasks.length,
    long.length,
    longest.wallMs,
    longest.itsCpuMs,
    longest.mostCpuMs,
    `no task > ${LONG_TASK_MS} ms: ${verdict(long.length === 0)}`,
  ];
}

export async function runOpenRequestsBench({ rounds, log }: OpenRequestsBenchOptions): Promise<SuiteResult> {
  const served = await startServedWorkbench('open-requests');
  try {
    const { url, privateKey, workbenchUrl, browser } = served;
    const created = await fetch(`${url}/tokens`, {
      method: 'POST',
      headers: { 'BT-API-KEY': privateKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'card', data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 } }),
    });
    if (!created.ok) throw new Error(`creating the card token: ${created.status} ${await created.text()}`);
    const token = ((await created.json()) as { id: string }).id;

    const page = await browser.newPage({ viewport: VIEWPORT });
    await keepOpenRequests(page, DESTINATION, OPEN_REQUESTS, (n) => chargeBody(n, token));
    await page.goto(workbenchUrl);
    await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
    // A new vault greets with its first keys once.
    await page.getByRole('button', { name: 'I have saved the keys' }).click();
    await onShow(page).focus();
    const measured = await measure(browser, page, rounds, log);

    return browserSuiteResult(
      'open-requests',
      `Composer with ${OPEN_REQUESTS} open requests`,
      [
        {
          title: `${OPEN_REQUESTS} open requests (Chromium ${browser.version()}, ${VIEWPORT.width}×${VIEWPORT.height}; performance trace of the renderer's main thread)`,
          columns: ['action', 'count', 'p50 ms', 'slowest ms', 'main-thread tasks', `tasks > ${LONG_TASK_MS} ms`, 'longest task ms', 'its CPU ms', 'most CPU in a task ms', 'target'],
          rows: [
            row('switching to the next request (Alt+→, keydown to its tab and destination painted)', measured.switchMs.length, measured.switchMs, measured.switchTasks),
            row(`typing in the body (keys ${KEY_DELAY_MS} ms apart)`, measured.keys, null, measured.typingTasks),
          ],
        },
      ],
      [
        `Each request's body is a ${chargeBody(OPEN_REQUESTS, token).length}-byte JSON charge naming a card token by an expression; the requests are kept as across a restart.`,
        'A switch is timed in the page: from the keydown to the DOM change that shows the request, plus the frame that paints it.',
      ],
      {
        switchMs: measured.switchMs,
        longSwitchTasks: measured.switchTasks.filter((task) => task.wallMs > LONG_TASK_MS),
        longTypingTasks: measured.typingTasks.filter((task) => task.wallMs > LONG_TASK_MS),
      },
    );
  } finally {
    await served.stop();
  }
}
