import type { PageDefinition } from './pages';
import { shortcutLabel } from '../components/keys';

/** An address naming a page this workbench does not have (an old bookmark, a typo): say so, and offer the pages. */
export function NoSuchPage({ id, pages }: { id: string; pages: readonly PageDefinition[] }) {
  return (
    <section className="panel" aria-labelledby="no-such-page-title">
      <h2 id="no-such-page-title">No page “{id}”</h2>
      <p>This workbench has no such page. Open one of these:</p>
      <ul>
        {pages.map((page) => (
          <li key={page.id}>
            <a href={`#/${page.id}`}>{page.title}</a> <kbd>{shortcutLabel(page.shortcut)}</kbd>
          </li>
        ))}
      </ul>
    </section>
  );
}
