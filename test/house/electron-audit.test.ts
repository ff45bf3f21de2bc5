// The Electron audit (scripts/electron-audit.mjs, one of `npm run check`'s gates) fails on a HIGH finding, and its
// result depends on the code alone: it runs here and on CI without a network, so it never tries one. The fixture under
// fixtures/electron-audit/ is a project whose one window shares its pages' JavaScript world with the preload.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/test-engine';

const root = join(import.meta.dirname, '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'electron-audit');
const probe = pathToFileURL(join(root, 'test', 'support', 'network-probe.mjs')).href;
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

// The tool parses every file of both folders: seconds when idle, much more on a busy shared machine.
const timeout = 90_000;

/** Runs the audit as `npm run audit:electron` does, over `dir`, with every network attempt reported on stderr. */
function audit(dir: string): { status: number | null; output: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, ['--import', probe, join(root, 'scripts', 'electron-audit.mjs'), dir], {
    cwd: root,
    encoding: 'utf8',
  });
  return { status, output: `${stdout}${stderr}` };
}

/** A copy of the fixture project, with its window's `contextIsolation` as given. */
function fixtureProject(contextIsolation: boolean): string {
  const dir = tempDir('tokenbench-audit-');
  dirs.push(dir);
  cpSync(fixture, dir, { recursive: true });
  const main = join(dir, 'electron', 'main', 'index.ts');
  writeFileSync(main, readFileSync(main, 'utf8').replace('contextIsolation: false,', `contextIsolation: ${contextIsolation},`));
  return dir;
}

describe('the Electron audit', () => {
  it('fails on a window with contextIsolation: false, naming the finding and where it is', () => {
    const { status, output } = audit(fixtureProject(false));
    expect(output).toContain('electron: HIGH CONTEXT_ISOLATION_JS_CHECK main/index.ts:16:6 contextIsolation: false');
    expect(output).toContain('electron: 1 HIGH');
    expect(output).not.toContain('network attempt');
    expect(status).toBe(1);
  }, timeout);

  it('passes once that window isolates its pages', () => {
    const { status, output } = audit(fixtureProject(true));
    expect(output).toContain('electron: 0 HIGH');
    expect(output).not.toContain('network attempt');
    expect(status).toBe(0);
  }, timeout);

  it('passes on the project itself, trying no network', () => {
    const { status, output } = audit(root);
    expect(output).toContain('renderer: 0 HIGH');
    expect(output).not.toContain('network attempt');
    expect(status).toBe(0);
  }, timeout);
});
