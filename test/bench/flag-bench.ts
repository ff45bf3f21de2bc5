/**
 * The Composer's flags as a user waits for them, on a 100 KB JSON body holding 200 expressions: the built CLI serving
 * the built workbench, in Chromium. Two figures:
 * - keystroke to flags: a burst of typing (40 ms apart) that breaks an expression; the time from the burst's last
 *   keydown to the flag for the text it left being in the page (React, CodeMirror and the engine's check included);
 * - the check alone: POST /_workbench/checkRequest of the whole body over loopback HTTP, as the page sends its first check.
 * With `--baseline REF`, other commits are built apart and measured in turn with this build, each in its own page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { buildsToCompare } from './git-ref-build';
import { percentile } from './load';
import { browserSuiteResult, launchChromium } from './page-measures';
import { createBenchCards, benchBody } from './proxy-requests';
import type { SuiteResult } from './report';
import { startTokenbench } from './servers';
import { workbenchCaller } from './workbench-client';

export interface FlagBenchOptions {
  rounds: number;
  /** Other commits to build apart and measure in turn with this build. */
  baselineRefs: string[];
  log(line: string): void;
}

const BODY_BYTES = 100 * 1024;
const EXPRESSIONS = 200;
/** The target of issue 26: flags updated within this long of the last keystroke. */
const TARGET_MS = 50;
const BURSTS_PER_ROUND = 10;
const CHECKS_PER_ROUND = 30;
const KEY_DELAY_MS = 40;
/** Never sent anywhere: the Composer only checks it. */
const DESTINATION = 'https://api.example.com/v1/charges';

/** A pretty-printed body (as a user keeps one in the editor) of exactly BODY_BYTES, its card expressions first. */
function composedBody(cards: Parameters<typeof benchBody>[1]): string {
  const parsed = JSON.parse(benchBody(BODY_BYTES, cards).body(0)) as { lines: unknown[]; note: string };
  parsed.note = '';
  const size = () => JSON.stringify(parsed, null, 2).length;
  while (size() > BODY_BYTES) parsed.lines.pop();
  parsed.note = 'x'.repeat(BODY_BYTES - size());
  return JSON.stringify(parsed, null, 2);
}

function summary(samples: readonly number[]): { p50: number; p90: number; max: number; met: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), max: sorted[sorted.length - 1], met: sorted.filter((ms) => ms <= TARGET_MS).length };
}

/**
 * Watches the page: each keydown's time, and the first time the flags list says `needle` after the last keydown.
 * Only changes of that fact are recorded, so the watching costs little beside the editor's own DOM work.
 */
async function watchFlags(page: Page): Promise<void> {
  await page.evaluate(() => {
    const state = { keys: [] as number[], needle: '', seenAt: null as number | null };
    (window as unknown as { flagBench: typeof state }).flagBench = state;
    document.addEventListener('keydown', () => state.keys.push(performance.now()), true);
    new MutationObserver(() => {
      if (state.seenAt !== null || state.needle === '') return;
      const flags = document.querySelector('section[aria-label="Checks before sending"]')?.textContent ?? '';
      if (flags.includes(state.needle)) state.seenAt = performance.now();
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** Types `text` as a burst and returns the ms from its last keydown to the flags saying `needle`. */
async function burst(page: Page, text: string, needle: string): Promise<number> {
  await page.evaluate((wanted) => {
    const state = (window as unknown as { flagBench: { keys: number[]; needle: string; seenAt: number | null } }).flagBench;
    state.keys = [];
    state.needle = wanted;
    state.seenAt = null;
  }, needle);
  await page.keyboard.type(text, { delay: KEY_DELAY_MS });
  await page.waitForFunction(() => (window as unknown as { flagBench: { seenAt: number | null } }).flagBench.seenAt !== null, undefined, { timeout: 20_000 });
  return page.evaluate(() => {
    const { keys, seenAt } = (window as unknown as { flagBench: { keys: number[]; seenAt: number } }).flagBench;
    return seenAt - keys[keys.length - 1];
  });
}

/** Removes what a burst typed, and waits until no flag names a filter that does not exist. */
async function undo(page: Page, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await page.keyboard.press('Backspace');
  await page.getByRole('region', { name: 'Checks before sending' }).getByText(/undefined filter/).waitFor({ state: 'detached', timeout: 20_000 });
}

/** One build under measure: its engine, its page with the body pasted, and what was measured of it. */
interface Session {
  name: string;
  service: Awaited<ReturnType<typeof startTokenbench>>;
  dataDir: string;
  page: Page;
  /** checkRequest of the broken body, over loopback HTTP as the page sends it (the whole body, no draft). */
  checkAlone(): Promise<number>;
  keystrokes: number[];
  checks: number[];
}

/** Starts a build's engine, makes its tokens and opens its page with the body pasted, the cursor after the first expression's argument. */
async function openSession(browser: Browser, name: string, cli: string | undefined, log: (line: string) => void): Promise<Session> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenbench-flag-bench-'));
  // The limit raised so the check goes through every expression's token, access rule and evaluation: the most work.
  const service = await startTokenbench(dataDir, { cli, args: ['--max-expressions', String(EXPRESSIONS)] });
  const { url, privateKey, workbenchUrl: workbench } = service.info;
  if (!privateKey || !workbench) throw new Error(`${name}: Tokenbench printed no private key or no workbench address: run with \`npm run bench\`, which builds first`);
  log(`Flags: ${name}: creating ${EXPRESSIONS} card tokens…`);
  const cards = await createBenchCards(url, privateKey, EXPRESSIONS);
  const body = composedBody(cards);

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  await page.goto(workbench);
  await page.getByRole('status', { name: 'Connection' }).getByText('live').waitFor();
  // A new vault greets with its first keys once.
  await page.getByRole('button', { name: 'I have saved the keys' }).click();
  const request = page.getByRole('region', { name: 'Request', exact: true });
  await request.getByRole('textbox', { name: 'Destination URL' }).fill(DESTINATION);
  // Pasted, as a user brings a large body in (Playwright's fill builds 100 KB of DOM before the editor sees it).
  await page.evaluate((text) => navigator.clipboard.writeText(text), body);
  await request.getByRole('textbox', { name: 'Request body' }).focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Control+v');
  // The body's hosted-limit note shows the check of the pasted body has arrived.
  await request.getByText('The proxy would accept this request; 1 note.').waitFor({ timeout: 60_000 });
  // The cursor after the first expression's argument (line 4), where a filter would be added.
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
  await watchFlags(page);

  const call = workbenchCaller(url, workbench);
  const applications = (await call('listApplications', {})) as { id: string; type: string }[];
  const application = applications.find((app) => app.type === 'private')!;
  const query = {
    application_id: application.id,
    target_id: null,
    method: 'POST',
    path: '/proxy',
    headers: [['Content-Type', 'application/json'], ['BT-PROXY-URL', DESTINATION]],
    body: body.replace(`'$.number' }}`, `'$.number' | nope }}`),
  };
  async function checkAlone(): Promise<number> {
    const started = performance.now();
    const result = (await call('checkRequest', query)) as { flags: { kind: string }[] };
    const took = performance.now() - started;
    if (!result.flags.some((flag) => flag.kind === 'broken_expression')) throw new Error(`${name}: checkRequest did not flag the broken expression`);
    return took;
  }
  return { name, service, dataDir, page, checkAlone, keystrokes: [], checks: [] };
}

/** One round of a session: bursts that break and mend the first expression, then checks of the broken body alone. */
async function measureRound(session: Session, round: number): Promise<void> {
  for (let i = 0; i < BURSTS_PER_ROUND; i++) {
    const word = `nope${round}${String(i).padStart(2, '0')}`;
    const typed = ` | ${word}`;
    session.keystrokes.push(await burst(session.page, typed, `undefined filter: ${word}`));
    await undo(session.page, typed.length);
  }
  for (let i = 0; i < CHECKS_PER_ROUND; i++) session.checks.push(await session.checkAlone());
}

export async function runFlagBench({ rounds, baselineRefs, log }: FlagBenchOptions): Promise<SuiteResult> {
  const builds = buildsToCompare(baselineRefs, log);
  const browser = await launchChromium();
  const sessions: Session[] = [];
  try {
    for (const build of builds) sessions.push(await openSession(browser, build.name, build.cli, log));
    for (let round = 1; round <= rounds; round++) {
      // Each round in the other order, so no build always follows the same one.
      const order = round % 2 === 1 ? sessions : [...sessions].reverse();
      for (const session of order) {
        log(`Flags: round ${round} of ${rounds}, ${session.name}`);
        await measureRound(session, round);
      }
    }

    const ms = (n: number) => n.toFixed(1);
    const row = (measured: string, build: string, samples: number[]) => {
      const { p50, p90, max, met } = summary(samples);
      return [measured, build, samples.length, ms(p50), ms(p90), ms(max), `${met} of ${samples.length}`];
    };
    return browserSuiteResult(
      'flags',
      `Composer flags: a ${BODY_BYTES / 1024} KB JSON body with ${EXPRESSIONS} expressions`,
      [
        {
          title: `Flag latency (ms)${sessions.length > 1 ? ', builds in turn' : ''}`,
          columns: ['measured', 'build', 'samples', 'p50', 'p90', 'max', `within ${TARGET_MS} ms`],
          rows: [
            ...sessions.map((session) => row('last keystroke to flags in the page (Chromium)', session.name, session.keystrokes)),
            ...sessions.map((session) => row('checkRequest of the whole body alone (loopback HTTP)', session.name, session.checks)),
          ],
        },
      ],
      [
        `Bursts of ${KEY_DELAY_MS} ms between keystrokes, each adding a filter that does not exist to the first expression; the flag naming it is waited for.`,
        `The engine runs with --max-expressions ${EXPRESSIONS}, so every expression's token, access rule and evaluation is checked.`,
      ],
      Object.fromEntries(sessions.map((session) => [session.name, { keystrokesMs: session.keystrokes, checksMs: session.checks }])),
    );
  } finally {
    await browser.close();
    for (const session of sessions) {
      await session.service.stop();
      rmSync(session.dataDir, { recursive: true, force: true });
    }
  }
}
