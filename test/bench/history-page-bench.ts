import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { HistoryFilterInput } from '../../shared/workbench/history-filter';
import { HISTORY_PAGE_MAX } from '../../shared/workbench/history-contract';
import { MAX_LISTED, PAGE_SIZE } from '../../renderer/src/state/history-store';
import { freePort } from '../support/free-port';
import type { ChildServer } from './child-process';
import { fillHistory, lastMissing, MISSING, seededTag } from './history-fill';
import { browserSuiteResult, launchChromium, scrollerAround, median, round, scrollTable, scrollUnderTrace, timeInPage, traced, verdict } from './page-measures';
import type { SuiteResult, Table } from './report';
import { startTokenbench, type TokenbenchInfo } from './servers';
import { workbenchCaller } from './workbench-client';

export interface HistoryPageBenchOptions {
  /** Requests seeded into the history (the engine keeps 10,000 by default). */
  entries: number;
  /** Visits of the page and runs of each filter; the median and the slowest are reported. */
  rounds: number;
  log(line: string): void;
}

/** Issue 29's targets (docs/performance.md, Targets). */
const TARGETS = { filterMs: 200, longTaskMs: 50 };
const SCROLL_SECONDS = 5;
/** Pixels per frame: 3,000 px a second at 60 Hz, so 500 rows of about 30 px last the 5 s. */
const SCROLL_STEP = 50;

type Call = ReturnType<typeof workbenchCaller>;
type Filter = HistoryFilterInput;

const ROWS = `[...document.querySelectorAll('[data-testid=history-row]')].map((row) => row.dataset.entryId).join(',')`;
const rowsAre = (ids: string[]) => `${ROWS} === ${JSON.stringify(ids.join(','))}`;
const SCROLLER = scrollerAround('[data-testid=history-panel]');

/** Waits until `condition` (page source) holds; the page's CSP refuses Playwright's waitForFunction, which evals. */
async function until(page: Page, condition: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!((await page.evaluate(condition)) as boolean)) {
    if (Date.now() > deadline) throw new Error(`not so within 30 s: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The ids the engine lists for `filter`, newest first: what the page must show. */
async function engineIds(call: Call, filter: Filter, limit = PAGE_SIZE): Promise<string[]> {
  const entries = (await call('listHistory', { limit, filter })) as { id: string }[];
  return entries.map((entry) => entry.id);
}

/** Every entry the engine keeps, paged through. */
async function keptCount(call: Call): Promise<number> {
  let count = 0;
  let before: string | undefined;
  for (;;) {
    const page = (await call('listHistory', { limit: HISTORY_PAGE_MAX, ...(before && { before }) })) as { id: string }[];
    count += page.length;
    if (page.length < HISTORY_PAGE_MAX) return count;
    before = page[page.length - 1].id;
  }
}

/** The history is written behind the answers: waits until the engine lists `count` entries. */
async function waitForHistory(call: Call, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let kept = await keptCount(call); kept < count; kept = await keptCount(call)) {
    if (Date.now() > deadline) throw new Error(`the history lists ${kept} entries 30 s after seeding, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Times `act` until the page shows exactly the rows the engine lists for `filter`; throws, saying what the page
 * shows instead, when it never does.
 */
async function timeToRows(page: Page, act: string, ids: string[], what: string): Promise<number> {
  try {
    return await timeInPage(page, act, rowsAre(ids));
  } catch (error) {
    const shown = ((await page.evaluate(ROWS)) as string).split(',').filter(Boolean);
    throw new Error(`${what}: the page shows ${shown.length} rows, the engine lists ${ids.length} for that filter (${(error as Error).message})`, { cause: error });
  }
}

/** Back to every request, so each run starts from the same list. */
async function showAll(page: Page, allIds: string[]): Promise<void> {
  await page.evaluate(() => (window.location.hash = '#/history'));
  await until(page, rowsAre(allIds));
}

/** From another page to History (Ctrl/Cmd+4 does the same) in a freshly loaded workbench, until its rows are shown. */
async function firstRows(browser: Browser, page: Page, allIds: string[]): Promise<{ ms: number; cpuMs: number }> {
  await page.evaluate(() => (window.location.hash = '#/composer'));
  await page.reload();
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  await page.getByRole('main', { name: 'Composer' }).waitFor();
  const { result: ms, tasks } = await traced(browser, page, () => timeToRows(page, `window.location.hash = '#/history'`, allIds, 'first rows'));
  return { ms, cpuMs: tasks.reduce((sum, task) => sum + task.cpuMs, 0) };
}

/** A form control's new value as the user's last keystroke or choice gives it (React hears the native event). */
const setControl = (selector: string, value: string, event: 'input' | 'change') => `
  performance.clearResourceTimings();
  window.historyBenchStart = performance.now();
  const control = document.querySelector(${JSON.stringify(selector)});
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(control), 'value').set.call(control, ${JSON.stringify(value)});
  control.dispatchEvent(new Event(${JSON.stringify(event)}, { bubbles: true }));`;

/** When the page's last listHistory request left, after the act's start (resource timing). */
const REQUEST_LEFT = `(() => {
  const sent = performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('/listHistory'));
  return sent.length === 0 ? null : sent[sent.length - 1].startTime - window.historyBenchStart;
})()`;

interface FilterRun {
  ms: number;
  /** From the act to the request leaving the page (the typing pause, for text). */
  waitedMs: number;
  /** The renderer main thread's CPU time meanwhile. */
  cpuMs: number;
}

async function filterRun(browser: Browser, page: Page, act: string, ids: string[], what: string): Promise<FilterRun> {
  const { result: ms, tasks } = await traced(browser, page, () => timeToRows(page, act, ids, what));
  const waitedMs = (await page.evaluate(REQUEST_LEFT)) as number | null;
  if (waitedMs === null) throw new Error(`${what}: the page showed the rows without asking the engine`);
  return { ms, waitedMs, cpuMs: tasks.reduce((sum, task) => sum + task.cpuMs, 0) };
}

/**
 * The History page against the built CLI with `entries` requests in its history, in Chromium: the time from opening
 * the page to its rows, from choosing a view or typing a filter to the rows the engine lists for it, and the main
 * thread's long tasks while the loaded list scrolls. A script, not a test: it measures, and throws only when the page
 * shows other rows than the engine lists.
 */
export async function runHistoryPageBench(options: HistoryPageBenchOptions): Promise<SuiteResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-history-page-'));
  let service: ChildServer<TokenbenchInfo> | undefined;
  let browser: Browser | undefined;
  try {
    // serve's --echo-port 0 turns the echo destination off, so it gets a port found free.
    service = await startTokenbench(dataDir, { args: ['--echo-port', String(await freePort())] });
    const { url, privateKey, workbenchUrl, echoUrl } = service.info;
    if (!privateKey || !workbenchUrl || !echoUrl) throw new Error('serve printed no private key, workbench or echo address (is the UI built?)');
    const call = workbenchCaller(url, workbenchUrl);
    options.log(`history-page: seeding ${options.entries} requests`);
    const seedStart = performance.now();
    await fillHistory(url, echoUrl, privateKey, options.entries);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    await waitForHistory(call, options.entries);
    const kept = await keptCount(call);
    options.log(`history-page: ${kept} entries kept, seeded in ${seedSeconds.toFixed(1)} s`);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(workbenchUrl);
    await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

    options.log('history-page: first rows');
    const allIds = await engineIds(call, {});
    const visits: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < options.rounds; i++) visits.push(await firstRows(browser, page, allIds));

    options.log('history-page: filters');
    const filters: { what: string; how: string; filter: Filter; act: string; typed: boolean }[] = [
      { what: 'view "Proxy errors"', how: 'Show', filter: { view: 'proxy-errors' }, act: setControl('select[aria-label=Show]', 'proxy-errors', 'change'), typed: false },
      { what: 'view "Any status ≥ 400"', how: 'Show', filter: { view: 'failed' }, act: setControl('select[aria-label=Show]', 'failed', 'change'), typed: false },
      ...[MISSING, `${MISSING}${seededTag(lastMissing(options.entries))}`].map((text) => ({
        what: `text "${text}"`,
        how: 'Search',
        filter: { text },
        act: setControl('input[aria-label="Search the requests"]', text, 'input'),
        typed: true,
      })),
    ];
    const filterRows: (string | number)[][] = [];
    const filterData: Record<string, FilterRun[]> = {};
    for (const { what, filter, act, typed } of filters) {
      const ids = await engineIds(call, filter);
      if (ids.length === 0) throw new Error(`${what}: the engine lists nothing, so the seeding missed what it is for`);
      const runs: FilterRun[] = [];
      for (let i = 0; i < options.rounds; i++) {
        await showAll(page, allIds);
        runs.push(await filterRun(browser, page, act, ids, what));
      }
      // The engine's share: the same call over loopback HTTP from outside the page.
      const engineMs: number[] = [];
      for (let i = 0; i < options.rounds; i++) {
        const start = performance.now();
        await engineIds(call, filter);
        engineMs.push(performance.now() - start);
      }
      filterData[what] = runs;
      const times = runs.map((run) => run.ms);
      const afterRequest = runs.map((run) => run.ms - run.waitedMs);
      filterRows.push([
        what,
        ids.length < PAGE_SIZE ? ids.length : `${PAGE_SIZE} (a page)`,
        round(median(times)),
        round(Math.max(...times)),
        round(median(runs.map((run) => run.waitedMs))),
        round(median(afterRequest)),
        round(Math.max(...afterRequest)),
        round(median(engineMs)),
        round(median(runs.map((run) => run.cpuMs))),
        typed
          ? `${verdict(Math.max(...afterRequest) < TARGETS.filterMs)} from the request; ${verdict(Math.max(...times) < TARGETS.filterMs)} from the keystroke`
          : verdict(Math.max(...times) < TARGETS.filterMs),
      ]);
    }

    options.log('history-page: loading older requests and scrolling');
    await showAll(page, allIds);
    const listedIds = await engineIds(call, {}, MAX_LISTED);
    const loadOlder = page.getByRole('button', { name: 'Load older requests' });
    const rowCount = async () => ((await page.evaluate(ROWS)) as string).split(',').length;
    for (let count = await rowCount(); count < listedIds.length; count = await rowCount()) {
      await loadOlder.click();
      await until(page, `${ROWS}.split(',').length >= ${count + PAGE_SIZE}`);
    }
    await until(page, rowsAre(listedIds));
    const rowsInDom = (await page.evaluate(`document.querySelectorAll('[data-testid=history-row]').length`)) as number;
    const rowPx = (await page.evaluate(`document.querySelector('[data-testid=history-row]').getBoundingClientRect().height`)) as number;
    if (!(await page.evaluate(`${SCROLLER}.scrollHeight > ${SCROLLER}.clientHeight`))) throw new Error('the history list does not scroll');
    // Clicking "Load older requests" scrolled the list to its end: the scroll starts from the newest row.
    await page.evaluate(`${SCROLLER}.scrollTop = 0`);
    const scrolled = await scrollUnderTrace(browser, page, SCROLLER, SCROLL_SECONDS, SCROLL_STEP);

    const total = `${kept.toLocaleString('en-US')} requests`;
    const tables: Table[] = [
      {
        title: `History page, ${total} in the history (Chromium ${browser.version()}, 1440×900, ${options.rounds} runs each; seeded in ${seedSeconds.toFixed(1)} s)`,
        columns: ['measure', 'median ms', 'slowest ms', 'main-thread CPU ms, median', 'target', ''],
        rows: [
          [
            `first ${PAGE_SIZE} rows (from another page, the workbench just loaded)`,
            round(median(visits.map((visit) => visit.ms))),
            round(Math.max(...visits.map((visit) => visit.ms))),
            round(median(visits.map((visit) => visit.cpuMs))),
            'none set',
            '',
          ],
        ],
      },
      {
        title: `Filter to rows (the rows the engine lists for the filter, painted); a text filter's times include the page's pause after typing`,
        columns: ['filter', 'rows', 'median ms', 'slowest ms', 'to the request leaving, median ms', 'from the request, median ms', 'from the request, slowest ms', 'listHistory alone, median ms', 'main-thread CPU ms, median', `target < ${TARGETS.filterMs} ms`],
        rows: filterRows,
      },
      scrollTable(
        `Scrolling the list of ${rowsInDom} loaded rows (not virtualized: every row is in the DOM) for ${SCROLL_SECONDS} s, ${SCROLL_STEP} px a frame`,
        Math.round(scrolled.scrolledPx / rowPx),
        scrolled,
        TARGETS.longTaskMs,
      ),
    ];
    return browserSuiteResult(
      'history-page',
      'History page',
      tables,
      [
        'Times are measured in the page: from the navigation, the choice or the last keystroke to the DOM change that shows exactly the rows the engine lists for the filter, plus the frame that paints it.',
        "A text filter is judged both from the last keystroke and from the request leaving the page: the pause between them (TYPING_MS in HistoryFilters.tsx) is the page's choice, not work.",
        `The list shows ${PAGE_SIZE} rows a page and at most ${MAX_LISTED} ("Load older requests"); the scroll runs over all ${MAX_LISTED}.`,
      ],
      { kept, seedSeconds, firstRows: visits, filters: filterData, scroll: { ...scrolled, tasks: undefined, longTasks: scrolled.tasks.filter((task) => task.wallMs > TARGETS.longTaskMs) } },
    );
  } finally {
    await browser?.close();
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
