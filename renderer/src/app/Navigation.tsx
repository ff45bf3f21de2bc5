import type { PageDefinition } from './pages';
import { IS_MAC, shortcutLabel } from '../components/keys';
import { ThemeSwitch } from '../components/ThemeSwitch';

/** The workbench's pages, each with its shortcut, and the theme. */
export function Navigation({ pages, current }: { pages: readonly PageDefinition[]; current: PageDefinition | undefined }) {
  return (
    <aside className="sidebar">
      <h1 className="brand">Tokenbench</h1>
      <nav aria-label="Pages">
        <ul>
          {pages.map((page) => (
            <li key={page.id}>
              <a
                href={`#/${page.id}`}
                aria-current={page === current ? 'page' : undefined}
                aria-keyshortcuts={`${IS_MAC ? 'Meta' : 'Control'}+${page.shortcut}`}
              >
                <span>{page.title}</span>
                <kbd aria-hidden="true">{shortcutLabel(page.shortcut)}</kbd>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <ThemeSwitch />
    </aside>
  );
}
