/**
 * What the browser suites measure in Chromium: the time from an action in the page to the DOM change that shows its
 * result, the renderer main thread's tasks from a performance trace, and a steady scroll under that trace.
 */
import { loadavg } from 'node:os';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { SuiteResult, Table } from './report';

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
export const round = (ms: number) => Math.round(ms * 10) / 10;
export const verdict = (met: boolean) => (met ? 'met' : '**missed**');

/** Debian's Chromium, headless with software rendering, without its background traffic. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Runs `act` in the page and resolves with the milliseconds until `done` holds after a DOM change, plus the frame
 * that paints it: what the user waits for, measured in the page, not by polling from outside.
 */
export function timeInPage(page: Page, act: string, done: string): Promise<number> {
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

export interface Task {
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

/** Runs `work` under a performance trace; resolves with its result and the renderer main thread's tasks meanwhile. */
export async function traced<T>(browser: Browser, page: Page, work: () => Promise<T>): Promise<{ result: T; tasks: Task[] }> {
  await browser.startTracing(page, TRACE_CATEGORIES);
  const result = await work();
  const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: TraceEvent[] };
  return { result, tasks: mainThreadTasks(trace) };
}

/**
 * Page source for the nearest box around `selector` that scrolls: the list's own, a pane, or the document itself when
 * the page grows with the list (a layout change moves it, and a scroll of a box that does not scroll measures nothing).
 */
export const scrollerAround = (selector: string) => `(() => {
  let box = document.querySelector(${JSON.stringify(selector)});
  while (box && !(box.scrollHeight > box.clientHeight && /auto|scroll/.test(getComputedStyle(box).overflowY))) box = box.parentElement;
  return box ?? document.scrollingElement;
})()`;

export interface Scrolled {
  tasks: Task[];
  /** Milliseconds between animation frames. */
  intervals: number[];
  /** Frames not drawn: a gap of two frames' time is one dropped. */
  dropped: number;
  /** How far the list moved; it stops at its end. */
  scrolledPx: number;
}

/** Scrolls the element `scroller` (a page expression) down by `step` pixels a frame for `seconds` under a trace. */
export async function scrollUnderTrace(browser: Browser, page: Page, scroller: string, seconds: number, step: number): Promise<Scrolled> {
  const { result: frames, tasks } = await traced(
    browser,
    page,
    // Source text, not a function: tsx would wrap a named function in a helper the page does not have.
    () =>
      page.evaluate(`new Promise((resolve) => {
        const list = ${scroller};
        const top = list.scrollTop;
        const intervals = [];
        let last = performance.now();
        const end = last + ${seconds * 1000};
        requestAnimationFrame(function frame(now) {
          intervals.push(now - last);
          last = now;
          list.scrollTop += ${step};
          if (now < end) requestAnimationFrame(frame);
          else resolve({ intervals, scrolledPx: list.scrollTop - top });
        });
      })`) as Promise<{ intervals: number[]; scrolledPx: number }>,
  );
  // A frame takes 16.7 ms at 60 Hz: a longer gap between two is that many frames not drawn.
  const dropped = frames.intervals.reduce((sum, gap) => sum + Math.max(0, Math.round(gap / (1000 / 60)) - 1), 0);
  return { tasks, intervals: frames.intervals, dropped, scrolledPx: frames.scrolledPx };
}

/** The longest task's wall time, that task's CPU time, and the most CPU any task took. */
export function longestTasks(tasks: Task[]): { wallMs: number; itsCpuMs: number; mostCpuMs: number } {
  const longest = tasks.reduce((a, b) => (b.wallMs > a.wallMs ? b : a), { wallMs: 0, cpuMs: 0 });
  return { wallMs: round(longest.wallMs), itsCpuMs: round(longest.cpuMs), mostCpuMs: round(Math.max(0, ...tasks.map((task) => task.cpuMs))) };
}

/** A scroll's figures as both page suites report them, after `rowsScrolled`. */
export function scrollTable(title: string, rowsScrolled: number, scrolled: Scrolled, longTaskMs: number): Table {
  const long = scrolled.tasks.filter((task) => task.wallMs > longTaskMs);
  const longest = longestTasks(scrolled.tasks);
  return {
    title,
    columns: [
      'rows scrolled',
      'frames drawn',
      'frames dropped',
      'longest frame ms',
      'main-thread tasks',
      `tasks > ${longTaskMs} ms`,
      'longest task ms',
      'its CPU ms',
      'most CPU in a task ms',
      'target',
    ],
    rows: [
      [
        rowsScrolled,
        scrolled.intervals.length,
        scrolled.dropped,
        round(Math.max(...scrolled.intervals)),
        scrolled.tasks.length,
        long.length,
        longest.wallMs,
        longest.itsCpuMs,
        longest.mostCpuMs,
        `no task > ${longTaskMs} ms: ${verdict(long.length === 0)}`,
      ],
    ],
  };
}

/**
 * A browser suite's result: its tables and notes, then the notes every browser suite ends with (call it when the
 * measuring ends, for the load average then). No baseline system: the page is measured against its targets.
 */
export function browserSuiteResult(suite: string, title: string, tables: Table[], notes: string[], data: Record<string, unknown>): SuiteResult {
  return { suite, title, baselineSystem: '', measurements: [], tables, notes: [...notes, ...browserNotes()], data };
}

function browserNotes(): string[] {
  return [
    'Headless Chromium with software rendering (--disable-gpu), on the same machine as the engine.',
    "A task's CPU time is the main thread's own; a task much longer than its CPU time waited for a core (a shared machine), it did not work.",
    `Load average ${loadavg()[0].toFixed(2)} when the measuring ended.`,
  ];
}
