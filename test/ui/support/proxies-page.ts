import type { Page } from '@playwright/test';
import { goByShortcut } from './workbench-page';

/** Goes to Proxies with its shortcut, as a keyboard user does, and waits for the page. */
export const goToProxies = (page: Page) => goByShortcut(page, '6', 'Proxies');

/** The Proxies page as a user drives it: by role and accessible name. */
export function proxiesPage(page: Page) {
  const list = page.getByRole('region', { name: 'Proxies', exact: true });
  const editor = page.getByRole('form', { name: /^(New proxy|Proxy “.*”)$/ });
  const tryPanel = page.getByRole('region', { name: 'Try', exact: true });
  const trace = (where = tryPanel) => where.getByRole('list', { name: 'Pipeline steps' });
  /** The steps of a trace, in order (not the log lines listed inside a step). */
  const steps = (where = tryPanel) => trace(where).locator(':scope > li');
  return {
    list,
    editor,
    tryPanel,
    trace,
    steps,
    /** A step of a pipeline trace, by its name ("Request code", "Destination"). */
    step: (name: string, where = tryPanel) => steps(where).filter({ hasText: new RegExp(`^\\d+\\. ${name}`) }),
    /** The code of a transform, by its side and number ("request transform 1"). */
    code: (transform: string) => editor.getByRole('textbox', { name: `Code of ${transform}` }),
    open: (name: string) => list.getByRole('button', { name, exact: true }).click(),
  };
}
