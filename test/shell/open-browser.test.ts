import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { browserCommand, openInBrowser } from '../../electron/main/open-browser';
import { tempDir } from '../support/test-engine';

const url = 'http://127.0.0.1:4780/ui/#launch=abc';
const choose = (env: NodeJS.ProcessEnv, platform: NodeJS.Platform = 'linux') => browserCommand(url, { env, platform });

describe('which browser `npm start` opens', () => {
  it('runs BROWSER, a command with its arguments, with the link last or in place of %s', () => {
    expect(choose({ BROWSER: 'firefox' })).toEqual({ command: 'firefox', args: [url] });
    expect(choose({ BROWSER: '  /opt/chrome/chrome  --new-window ', DISPLAY: ':0' })).toEqual({ command: '/opt/chrome/chrome', args: ['--new-window', url] });
    expect(choose({ BROWSER: 'w3m %s -o x' }, 'darwin')).toEqual({ command: 'w3m', args: [url, '-o', 'x'] });
  });

  it('opens nothing for BROWSER=none, saying so', () => {
    expect(choose({ BROWSER: 'none', DISPLAY: ':0' })).toEqual({ none: 'BROWSER is none' });
  });

  it("uses the desktop's opener where there is a desktop, and none without one", () => {
    expect(choose({ DISPLAY: ':0' })).toEqual({ command: 'xdg-open', args: [url] });
    expect(choose({ WAYLAND_DISPLAY: 'wayland-0' }, 'freebsd')).toEqual({ command: 'xdg-open', args: [url] });
    expect(choose({})).toEqual({ none: 'no desktop here (neither DISPLAY nor WAYLAND_DISPLAY is set)' });
    expect(choose({}, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(choose({}, 'win32')).toEqual({ command: 'cmd', args: ['/c', 'start', '""', url], verbatim: true });
  });
});

describe('opening it', () => {
  const scratch = tempDir('tokenbench-open-browser-');
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs the command with the link as its argument and says what it ran', async () => {
    const recorder = join(scratch, 'record.sh');
    const recorded = join(scratch, 'recorded');
    writeFileSync(recorder, `#!/bin/sh\nprintf '%s' "$*" > '${recorded}'\n`, { mode: 0o755 });
    expect(await openInBrowser({ command: recorder, args: ['--flag', url] })).toBe(`Opened it in your browser (${recorder}).`);
    // The browser runs apart from Tokenbench (its own process group, not waited for): its record comes a moment later.
    await expect.poll(() => existsSync(recorded) && readFileSync(recorded, 'utf8')).toBe(`--flag ${url}`);
  });

  it('says why nothing opened, and what to do', async () => {
    expect(await openInBrowser({ none: 'BROWSER is none' })).toBe('Not opening a browser: BROWSER is none. Open the link above in one.');
    expect(await openInBrowser({ command: join(scratch, 'no-such-browser'), args: [url] })).toMatch(
      /^Could not start .*no-such-browser \(ENOENT\)\. Open the link above in a browser\.$/,
    );
  });
});
