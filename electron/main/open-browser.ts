import { spawn } from 'node:child_process';

/** A command that opens a link in a browser, or why no browser is opened. */
export type BrowserChoice = { command: string; args: string[]; verbatim?: boolean } | { none: string };

/**
 * How `npm start` opens the workbench's link: with BROWSER when it is set (a command and its arguments, separated by
 * spaces, the link in place of `%s` or after them; `none` opens nothing), else with the desktop's opener, where
 * there is a desktop. Whatever runs gets the launch link only: its command line is readable by every local user.
 */
export function browserCommand(url: string, { env, platform }: { env: NodeJS.ProcessEnv; platform: NodeJS.Platform }): BrowserChoice {
  const browser = env.BROWSER?.trim();
  if (browser) {
    if (browser === 'none') return { none: 'BROWSER is none' };
    const [command, ...args] = browser.split(/\s+/);
    return { command, args: args.includes('%s') ? args.map((arg) => (arg === '%s' ? url : arg)) : [...args, url] };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // `start` is a built-in of cmd; its first quoted argument is a window title, hence the empty one.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url], verbatim: true };
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return { command: 'xdg-open', args: [url] };
  return { none: 'no desktop here (neither DISPLAY nor WAYLAND_DISPLAY is set)' };
}

/**
 * Starts the browser command, apart from this process (its own process group, so a Ctrl-C that stops Tokenbench
 * leaves a browser it started alone), and answers the line that tells the user what happened.
 */
export function openInBrowser(choice: BrowserChoice): Promise<string> {
  if ('none' in choice) return Promise.resolve(`Not opening a browser: ${choice.none}. Open the link above in one.`);
  return new Promise((resolve) => {
    const child = spawn(choice.command, choice.args, { detached: true, stdio: 'ignore', windowsVerbatimArguments: choice.verbatim });
    child.once('spawn', () => {
      child.unref();
      resolve(`Opened it in your browser (${choice.command}).`);
    });
    child.once('error', (error: NodeJS.ErrnoException) => resolve(`Could not start ${choice.command} (${error.code ?? error.message}). Open the link above in a browser.`));
  });
}
