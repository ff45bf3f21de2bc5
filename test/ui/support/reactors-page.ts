import { expect, type Page } from '@playwright/test';
import { goByShortcut } from './workbench-page';

/** Goes to Reactors with its shortcut, as a keyboard user does, and waits for the page. */
export const goToReactors = (page: Page) => goByShortcut(page, '7', 'Reactors');

/** The Reactors page as a user drives it: by role and accessible name. */
export function reactorsPage(page: Page) {
  const editor = page.getByRole('form', { name: /^(New reactor|Reactor “.*”)$/ });
  const tryPanel = page.getByRole('region', { name: 'Try', exact: true });
  /** The steps of a react's trace, in order (not the log lines listed inside a step). */
  const steps = (where = tryPanel) => where.getByRole('list', { name: 'Reactor steps' }).locator(':scope > li');
  return {
    list: page.getByRole('region', { name: 'Reactors', exact: true }),
    editor,
    tryPanel,
    steps,
    /** A step of a react's trace, by its name ("Code", "Result out"). */
    step: (name: string, where = tryPanel) => steps(where).filter({ hasText: new RegExp(`^\\d+\\. ${name}`) }),
    code: () => editor.getByRole('textbox', { name: 'Code', exact: true }),
    args: () => tryPanel.getByRole('textbox', { name: 'Args' }),
    /** Waits for the sentence the editor's code says of its syntax. */
    syntaxSays: (said: string | RegExp) => expect(editor.getByRole('status').filter({ hasText: said })).toBeVisible(),
    /** Adds a configuration row. */
    async configure(name: string, value: string) {
      await editor.getByRole('textbox', { name: 'Name of new configuration row' }).fill(name);
      await editor.getByRole('textbox', { name: `Value of configuration ${name}` }).fill(value);
    },
    /** Waits for the page to say what a save or delete did. */
    said: (sentence: string) => expect(page.getByRole('status').filter({ hasText: sentence })).toBeVisible(),
  };
}
