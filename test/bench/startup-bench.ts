/**
 * The workbench's start-up as a user waits for it: from navigation to the page's first usable control, and to the
 * `live` stream connected, for each page opened by its address, in a new browser context (nothing cached) and on a
 * reload of it (the assets cached). With baselines (other commits, built apart), every build is served by its own
 * CLI in the same run, and they are visited in turn.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { PAGE_IDS, WORKBENCH_PAGES, type PageId } from '../../shared/workbench/pages';
import { SESSION_QUERY, WORKBENCH_PATHS } from '../../shared/workbench/transport';
import type { ChildServer } from './child-process';
import { buildsToCompare } from './git-ref-build';
import { browserSuiteResult, launchChromium, median, round } from './page-measures';
import type { SuiteResult, Table } from './report';
import { startTokenbench, type TokenbenchInfo } from './servers';

export interface StartupBenchOptions {
  /** Loads of each page per build, cold and warm; the median and the slowest are reported. */
  rounds: number;
  /** Git refs to compare with (each built once into a temporary folder); none: this build alone. */
  baselineRefs: string[];
  log(line: string): void;
}

/**
 * What "usable" means on each page: its first control a user reaches for, or the heading of its first section,
 * inside the page's landmark. A control is also focused when it appears, to show it takes focus.
 */
const READY: Record<PageId, { selector: string; focus: boolean }> = {
  composer: { selector: '.cm-content[aria-label="Request body"]', focus: true },
  tokens: { selector: 'input[aria-label="Search query"]', focus: true },
  transactions: { selector: 'h2#transactions-title', focus: false },
  history: { selector: 'h2#history-title', focus: false },
  settings: { selector: 'h2#settings-appearance', focus: false },
  proxies: { selector: 'h2#proxies-title', focus: false },
  reactors: { selector: 'h2#reactors-title', focus: false },
  webhooks: { selector: 'h2#webhooks-title', focus: false },
};

/** The renderer's sessionStorage key for the browser session (renderer/src/api/session.ts). */
const SESSION_KEY = 'tokenbench.session';
/** After the page is ready and live, how long it may keep fetching (a prefetch of other pages) before bytes are counted. */
const SETTLE_MS = 1000;

interface Startup {
  /** Milliseconds from navigation start (performance.now() of the new document). */
  firstContentfulPaint: number;
  ready: number;
  focused: boolean;
  live: number;
  /** JS and CSS over the network (the resource timing's transferSize; 0 from the cache), and files fetched. */
  jsBytes: number;
  cssBytes: number;
  files: number;
}

/**
 * Page source run before the page's own scripts on every navigation: it gives the tab the run's session (as a tab
 * that opened the printed address has it) and marks when the page is usable and when the stream is live, plus the
 * frame that paints each. A string, not a function: tsx would wrap a function in a helper the page does not have.
 */
function startupProbe(session: string, ready: { selector: string; focus: boolean }, title: string): string {
  return `(() => {
    if (!sessionStorage.getItem(${JSON.stringify(SESSION_KEY)})) sessionStorage.setItem(${JSON.stringify(SESSION_KEY)}, ${JSON.stringify(session)});
    const marks = {};
    window.__startup = marks;
    const selector = ${JSON.stringify(`main[aria-label="${title}"] ${ready.selector}`)};
    const painted = (name) => requestAnimationFrame(() => { marks[name] = performance.now(); performance.mark('startup:' + name); });
    const check = () => {
      if (marks.seen === undefined) {
        const element = document.querySelector(selector);
        if (element && element.getClientRects().length > 0) {
          marks.seen = performance.now();
          if (${ready.focus}) element.focus();
          marks.focused = !${ready.focus} || document.activeElement === element;
          painted('ready');
        }
      }
      if (marks.liveSeen === undefined && document.querySelector('[role=status][aria-label=Connection]')?.textContent === 'live') {
        marks.liveSeen = performance.now();
        painted('live');
      }
      if (marks.seen !== undefined && marks.liveSeen !== undefined) observer.disconnect();
    };
    const observer = new MutationObserver(check);
    observer.observe(document, { childList: true, subtree: true, characterData: true });
  })()`;
}

/** Waits until the probe marked both moments; the page's CSP refuses Playwright's waitForFunction, which evals. */
async function marked(page: Page): Promise<{ ready: number; live: number; focused: boolean }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const marks = (await page.evaluate('window.__startup')) as { ready?: number; live?: number; focused?: boolean } | undefined;
    if (marks?.ready !== undefined && marks.live !== undefined) return { ready: marks.ready, live: marks.live, focused: marks.focused === true };
    if (Date.now() > deadline) throw new Error(`the page was not ready and live within 30 s: ${JSON.stringify(marks)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The page's first contentful paint and the JS and CSS it fetched, from its performance timeline. */
async function timeline(page: Page): Promise<Pick<Startup, 'firstContentfulPaint' | 'jsBytes' | 'cssBytes' | 'files'>> {
  await page.waitForTimeout(SETTLE_MS);
  return (await page.evaluate(`(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    const assets = performance.getEntriesByType('resource').filter((entry) => /\\.(js|css)$/.test(new URL(entry.name).pathname));
    const bytes = (extension) => assets.filter((entry) => entry.name.endsWith(extension)).reduce((sum, entry) => sum + entry.transferSize, 0);
    return { firstContentfulPaint: fcp ? fcp.startTime : NaN, jsBytes: bytes('.js'), cssBytes: bytes('.css'), files: assets.filter((entry) => entry.transferSize > 0).length };
  })()`)) as Pick<Startup, 'firstContentfulPaint' | 'jsBytes' | 'cssBytes' | 'files'>;
}

async function measure(page: Page, navigate: () => Promise<unknown>): Promise<Startup> {
  await navigate();
  const marks = await marked(page);
  return { ...marks, ...(await timeline(page)) };
}

/** A new context (no cache, no storage) opened at the page's address, then reloaded with its cache. */
async function coldAndWarm(browser: Browser, info: TokenbenchInfo, id: PageId): Promise<{ cold: Startup; warm: Startup }> {
  const session = new URL(info.workbenchUrl!).hash.slice(1);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(startupProbe(new URLSearchParams(session).get(SESSION_QUERY)!, READY[id], WORKBENCH_PAGES[id]));
    const page = await context.newPage();
    const cold = await measure(page, () => page.goto(`${info.url}${WORKBENCH_PATHS.ui}#/${id}`));
    const warm = await measure(page, () => page.reload());
    return { cold, warm };
  } finally {
    await context.close();
  }
}

interface System {
  name: string;
  service: ChildServer<TokenbenchInfo>;
  loads: Map<string, Startup[]>;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** One row: a build's loads of one page, cold or warm. */
function row(system: System, key: string): (string | number)[] {
  const runs = system.loads.get(key)!;
  const ready = runs.map((run) => run.ready);
  const live = runs.map((run) => run.live);
  const last = runs[runs.length - 1];
  return [
    key,
    system.name,
    round(median(runs.map((run) => run.firstContentfulPaint))),
    round(median(ready)),
    round(Math.max(...ready)),
    round(median(live)),
    round(Math.max(...live)),
    `${kb(last.jsBytes)} / ${kb(last.cssBytes)} (${last.files})`,
    runs.every((run) => run.focused) ? '' : '**focus refused**',
  ];
}

/**
 * Start-up of the built workbench in Chromium, page by page, cold and warm, with the baselines' builds beside it.
 * A script, not a test: it measures and reports.
 */
export async function runStartupBench(options: StartupBenchOptions): Promise<SuiteResult> {
  const builds = buildsToCompare(options.baselineRefs, options.log);
  const dataDirs: string[] = [];
  const systems: System[] = [];
  let browser: Browser | undefined;
  try {
    for (const build of builds) {
      const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-startup-'));
      dataDirs.push(dataDir);
      const service = await startTokenbench(dataDir, { cli: build.cli });
      if (!service.info.workbenchUrl) throw new Error(`${build.name}: serve printed no workbench address (is the UI built?)`);
      systems.push({ name: build.name, service, loads: new Map() });
    }
    browser = await launchChromium();
    // One untimed visit each: a new vault's welcome (its keys, shown once) would otherwise cover the first page.
    for (const system of systems) await coldAndWarm(browser, system.service.info, 'composer');

    for (let round = 0; round < options.rounds; round++) {
      options.log(`startup: round ${round + 1} of ${options.rounds}`);
      // Each round in the other order, so no build always follows the same one.
      const order = round % 2 === 0 ? systems : [...systems].reverse();
      for (const id of PAGE_IDS) {
        for (const system of order) {
          const { cold, warm } = await coldAndWarm(browser, system.service.info, id);
          for (const [kind, run] of [['cold', cold], ['warm', warm]] as const) {
            const key = `#/${id}, ${kind}`;
            system.loads.set(key, [...(system.loads.get(key) ?? []), run]);
          }
        }
      }
    }

    const tables: Table[] = [
      {
        title: `Start-up (Chromium ${browser.version()}, 1440×900, ${options.rounds} loads each, builds in turn)`,
        columns: [
          'page, cache',
          'build',
          'first paint ms (median)',
          'usable ms (median)',
          'usable ms (slowest)',
          'live ms (median)',
          'live ms (slowest)',
          'JS / CSS transferred (files)',
          '',
        ],
        rows: [...systems[0].loads.keys()].flatMap((key) => systems.map((system) => row(system, key))),
      },
    ];
    return browserSuiteResult(
      'startup',
      'Workbench start-up',
      tables,
      [
        'From navigation start to: the first contentful paint; the page usable (its first control shown and focused, or its first heading shown, plus the frame that paints it); the status bar showing the `live` stream (plus a frame).',
        'cold: a new browser context opened at the page\'s address (`#/<page>`); warm: that tab reloaded, its assets from the cache.',
        `Bytes: every .js and .css the page fetched within ${SETTLE_MS} ms of being ready and live, from the last load.`,
      ],
      { loads: Object.fromEntries(systems.map((system) => [system.name, Object.fromEntries(system.loads)])) },
    );
  } finally {
    await browser?.close();
    for (const system of systems) await system.service.stop();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}
