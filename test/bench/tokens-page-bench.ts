import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { ChildServer } from './child-process';
import type { SuiteResult, Table } from './report';
import { startTokenbench, type TokenbenchInfo } from './servers';
import { mixedRequest } from './vault-data';
import { fillVault } from './vault-fill';

export interface TokensPageBenchOptions {
  tokens: number;
  /** Visits of the page and runs of each search; the median and the slowest are reported. */
  rounds: number;
  log(line: string): void;
}

/** The targets (docs/performance.md, Targets). */
const TARGETS = { firstRowsMs: 300, searchMs: 200, longTaskMs: 50 };
const SCROLL_SECONDS = 5;
/** Pixels per frame: a fast, steady scroll (12,000 px a second at 60 Hz; rows are 30 px). */
const SCROLL_STEP = 200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const round = (ms: number) => Math.round(ms * 10) / 10;
const verdict = (met: boolean) => (met ? 'met' : '**missed**');

/**
 * Runs `act` in the page and resolves with the milliseconds until `done` holds after a DOM change, plus the frame
 * that paints it: what the user waits for, measured in the page, not by polling from outside.
 */
function timeInPage(page: Page, act: string, done: string): Promise<number> {
  return page.evaluate(
    ({ act, done }) =>
      new Promise<number>((resolve, reject) => {
        const isDone = new Function(`return (${done})`) as () => boolean;
        const start = performance.now();
        const timeout = setTimeout(() => reject(new Error(`not done within 30 s: ${done}`)), 30_000);
        const observer = new MutationObserver(() => {
          if (!isDone()) return;
          observer.disconnect();
          clearTimeout(timeout);
          requestAnimationFrame(() => resolve(performance.now() - start));
        });
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
        (new Function(act) as () => void)();
      }),
    { act, done },
  );
}

const FIRST_ROW = `document.querySelector('[role=listbox][aria-label=Tokens] [role=option]') !== null`;
const summaryIs = (text: string) => `document.querySelector('[aria-label="Tokens found"]')?.textContent?.startsWith(${JSON.stringify(text)}) === true`;

/**
 * From another page to the Tokens page (as its navigation link does) until its first rows are on screen, in a freshly
 * loaded workbench: on a later visit the rows of the last one show at once while they are read again.
 */
async function firstRows(browser: Browser, page: Page): Promise<{ ms: number; cpuMs: number }> {
  await page.evaluate(() => (window.location.hash = '#/composer'));
  await page.reload();
  await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();
  await page.getByRole('main', { name: 'Composer' }).waitFor();
  await browser.startTracing(page, TRACE_CATEGORIES);
  const ms = await timeInPage(page, `window.location.hash = '#/tokens'`, FIRST_ROW);
  const tasks = mainThreadTasks(JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] });
  return { ms, cpuMs: tasks.reduce((sum, task) => sum + task.cpuMs, 0) };
}

/** From Enter in the search box until the list shows the answer's count and rows. */
async function search(page: Page, query: string, expectedSummary: string, whole: string): Promise<number> {
  const box = page.getByRole('searchbox', { name: 'Search query' });
  // Back to the whole list first, so each run starts from the same state.
  await box.fill('');
  await box.press('Enter');
  await page.getByRole('status', { name: 'Tokens found' }).filter({ hasText: new RegExp(`^${whole}`) }).waitFor();
  await box.fill(query);
  const submit = `document.querySelector('form[aria-label="Find tokens"]').requestSubmit()`;
  return timeInPage(page, submit, `${summaryIs(expectedSummary)} && ${FIRST_ROW}`);
}

const TRACE_CATEGORIES = { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] };

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  /** The thread's CPU time in the task; less than `dur` when the machine gave the thread no core meanwhile. */
  tdur?: number;
  args?: { name?: string };
}

interface Task {
  wallMs: number;
  cpuMs: number;
}

/** The renderer main thread's tasks, from a Chromium trace (the thread with the most of them). */
function mainThreadTasks(trace: { traceEvents: TraceEvent[] }): Task[] {
  const mainThreads = new Set(
    trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const byThread = new Map<string, Task[]>();
  for (const event of trace.traceEvents) {
    const thread = `${event.pid}:${event.tid}`;
    if (event.ph !== 'X' || event.name !== 'RunTask' || !mainThreads.has(thread)) continue;
    const task = { wallMs: (event.dur ?? 0) / 1000, cpuMs: (event.tdur ?? event.dur ?? 0) / 1000 };
    byThread.set(thread, [...(byThread.get(thread) ?? []), task]);
  }
  return [...byThread.values()].sort((a, b) => b.length - a.length)[0] ?? [];
}

/** Scrolls the list down, frame by frame, for SCROLL_SECONDS under a performance trace. */
async function scroll(browser: Browser, page: Page) {
  await browser.startTracing(page, TRACE_CATEGORIES);
  // Source text, not a function: tsx would wrap a named function in a helper the page does not have.
  const frames = (await page.evaluate(`new Promise((resolve) => {
    const list = document.querySelector('[role=listbox][aria-label=Tokens]');
    const intervals = [];
    let last = performance.now();
    const end = last + ${SCROLL_SECONDS * 1000};
    requestAnimationFrame(function frame(now) {
      intervals.push(now - last);
      last = now;
      list.scrollTop += ${SCROLL_STEP};
      if (now < end) requestAnimationFrame(frame);
      else resolve({ intervals, rows: Math.round(list.scrollTop / 30) });
    });
  })`)) as { intervals: number[]; rows: number };
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
  const tasks = mainThreadTasks(trace);
  // A frame takes 16.7 ms at 60 Hz: a longer gap between two is that many frames not drawn.
  const dropped = frames.intervals.reduce((sum, gap) => sum + Math.max(0, Math.round(gap / (1000 / 60)) - 1), 0);
  return { tasks, intervals: frames.intervals, dropped, rowsScrolled: frames.rows };
}

/**
 * The Tokens page against the built CLI with a vault of `tokens` tokens, in Chromium: the time from opening the page
 * to its first rows, from a search to its results, and the main thread's long tasks and dropped frames while the
 * list scrolls (Chromium's performance trace). A script, not a test: it measures and reports.
 */
export async function runTokensPageBench(options: TokensPageBenchOptions): Promise<SuiteResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-tokens-page-'));
  let service: ChildServer<TokenbenchInfo> | undefined;
  let browser: Browser | undefined;
  try {
    service = await startTokenbench(dataDir);
    const { url, privateKey, workbenchUrl } = service.info;
    if (!privateKey || !workbenchUrl) throw new Error('serve printed no private key or no workbench address (is the UI built?)');
    options.log(`tokens-page: filling the vault with ${options.tokens} tokens`);
    const filled = await fillVault(url, privateKey, options.tokens);
    // The fill's requests are numbered: the plaintext of token n is mixedRequest(n)'s, and the search needs one SSN.
    const ssnAt = filled.findLastIndex((token) => token.type === 'social_security_number');

    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(workbenchUrl);
    await page.getByRole('status', { name: 'Connection' }).filter({ hasText: 'live' }).waitFor();

    options.log('tokens-page: first rows');
    const visits: { ms: number; cpuMs: number }[] = [];
    for (let i = 0; i < options.rounds; i++) visits.push(await firstRows(browser, page));
    const firstRowTimes = visits.map((visit) => visit.ms);
    const total = `${options.tokens.toLocaleString('en-US')} tokens`;
    await page.getByRole('status', { name: 'Tokens found' }).filter({ hasText: new RegExp(`^${total}`) }).waitFor();

    options.log('tokens-page: searches');
    const cards = Math.ceil(options.tokens / 3).toLocaleString('en-US');
    const searches: [string, string, string][] = [
      ['a third of the vault', 'type:card', `${cards} tokens`],
      ['one token by a search index', `data:${mixedRequest(ssnAt).request.data as string}`, '1 token'],
      ['one token by id', `id:${filled[filled.length - 1].id}`, '1 token'],
    ];
    const searchRows: (string | number)[][] = [];
    for (const [what, query, summary] of searches) {
      const times: number[] = [];
      for (let i = 0; i < options.rounds; i++) times.push(await search(page, query, summary, total));
      searchRows.push([what, `\`${query}\``, round(median(times)), round(Math.max(...times)), verdict(Math.max(...times) < TARGETS.searchMs)]);
    }

    options.log('tokens-page: scrolling');
    await page.getByRole('searchbox', { name: 'Search query' }).fill('');
    await page.getByRole('searchbox', { name: 'Search query' }).press('Enter');
    await page.getByRole('status', { name: 'Tokens found' }).filter({ hasText: new RegExp(`^${total}`) }).waitFor();
    const scrolled = await scroll(browser, page);
    const longTasks = scrolled.tasks.filter((task) => task.wallMs > TARGETS.longTaskMs);
    const longest = (key: keyof Task) => round(Math.max(0, ...scrolled.tasks.map((task) => task[key])));

    const tables: Table[] = [
      {
        title: `Tokens page, ${total} (Chromium ${browser.version()}, 1440×900, ${options.rounds} runs each)`,
        columns: ['measure', 'median ms', 'slowest ms', 'main-thread CPU ms, median', 'target', ''],
        rows: [
          [
            'first rows (from another page, the workbench just loaded)',
            round(median(firstRowTimes)),
            round(Math.max(...firstRowTimes)),
            round(median(visits.map((visit) => visit.cpuMs))),
            `< ${TARGETS.firstRowsMs} ms`,
            verdict(Math.max(...firstRowTimes) < TARGETS.firstRowsMs),
          ],
        ],
      },
      { title: 'Search to results (Enter to count and rows painted)', columns: ['search', 'query', 'median ms', 'slowest ms', `target < ${TARGETS.searchMs} ms`], rows: searchRows },
      {
        title: `Scrolling the list for ${SCROLL_SECONDS} s, ${SCROLL_STEP} px a frame (performance trace of the renderer's main thread)`,
        columns: [
          'rows scrolled',
          'frames drawn',
          'frames dropped',
          'longest frame ms',
          'main-thread tasks',
          `tasks > ${TARGETS.longTaskMs} ms`,
          'longest task ms',
          'its CPU ms',
          'most CPU in a task ms',
          'target',
        ],
        rows: [
          [
            scrolled.rowsScrolled,
            scrolled.intervals.length,
            scrolled.dropped,
            round(Math.max(...scrolled.intervals)),
            scrolled.tasks.length,
            longTasks.length,
            longest('wallMs'),
            round(scrolled.tasks.reduce((a, b) => (b.wallMs > a.wallMs ? b : a), { wallMs: 0, cpuMs: 0 }).cpuMs),
            longest('cpuMs'),
            `no task > ${TARGETS.longTaskMs} ms: ${verdict(longTasks.length === 0)}`,
          ],
        ],
      },
    ];
    return {
      suite: 'tokens-page',
      title: 'Tokens page',
      baselineSystem: '',
      measurements: [],
      tables,
      notes: [
        'Times are measured in the page: from the navigation or the submit to the DOM change that shows the result, plus the frame that paints it.',
        'Headless Chromium with software rendering (--disable-gpu), on the same machine as the engine.',
        "A task's CPU time is the main thread's own; a task much longer than its CPU time waited for a core (a shared machine), it did not work.",
        `Load average ${loadavg()[0].toFixed(2)} when the scroll ended.`,
      ],
      data: { firstRows: visits, searches: searchRows, scroll: { ...scrolled, tasks: undefined, longTasks } },
    };
  } finally {
    await browser?.close();
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
