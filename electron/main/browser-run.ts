import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAUNCH_PATHS, SESSION_HEADER } from '../../shared/workbench/transport';

/**
 * Which process serves a profile's vault to a browser, and its session, so that a second `npm start` asks it for a
 * new link instead of failing on its port. Kept in the profile folder, owner-only like the vault and its key beside
 * it, and removed when that process stops.
 */
const RUN_FILE = 'browser-workbench.json';
/** A running engine answers at once; one that does not within this is treated as gone. */
const ASK_TIMEOUT_MS = 3000;

export interface BrowserRun {
  pid: number;
  url: string;
  session: string;
}

function readRun(file: string): BrowserRun | null {
  try {
    const run = JSON.parse(readFileSync(file, 'utf8')) as Partial<BrowserRun>;
    return Number.isInteger(run.pid) && typeof run.url === 'string' && typeof run.session === 'string' ? (run as BrowserRun) : null;
  } catch {
    return null;
  }
}

/** Records this process's run (written whole, then renamed, so a reader never sees half of it); answers its remover. */
export function recordRun(userDataDir: string, run: BrowserRun): () => void {
  const file = join(userDataDir, RUN_FILE);
  const partial = `${file}.${run.pid}`;
  writeFileSync(partial, JSON.stringify(run), { mode: 0o600 });
  renameSync(partial, file);
  return () => {
    if (readRun(file)?.pid === run.pid) rmSync(file, { force: true });
  };
}

/** The run recorded in this profile, if one is. */
export const recordedRun = (userDataDir: string): BrowserRun | null => readRun(join(userDataDir, RUN_FILE));

/**
 * A new launch link from a recorded run, or null when nothing answers it: a run killed outright leaves its record,
 * which leads nowhere (nothing listens, or not with its session), and the next start replaces it.
 */
export async function askForLink(run: BrowserRun): Promise<string | null> {
  try {
    const answer = await fetch(`${run.url}${LAUNCH_PATHS.link}`, {
      method: 'POST',
      headers: { [SESSION_HEADER]: run.session },
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    const { url } = (answer.ok ? await answer.json() : {}) as { url?: unknown };
    return typeof url === 'string' ? url : null;
  } catch {
    return null;
  }
}
