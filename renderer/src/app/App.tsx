import { Suspense, useEffect } from 'react';
import { useEngineStore } from '../state/engine-store';
import { Navigation } from './Navigation';
import { NoSuchPage } from './NoSuchPage';
import { pageNamed, PAGES } from './pages';
import { prefetchPages } from './prefetch-pages';
import { settlePageId, usePageId } from '../state/route';
import { usePageShortcuts } from './shortcuts';
import { StatusBar } from './StatusBar';
import { WelcomeDialog } from './WelcomeDialog';
import { Alert } from '../components/Alert';
import './theme.css';
import './shell.css';

/** The shell: the pages on the left, the chosen one beside them, the engine's status along the bottom. */
export function App() {
  const requested = usePageId();
  // No page named: the first. A page named that does not exist is said so, not swapped silently for another.
  const page = pageNamed(requested);
  const problem = useEngineStore((state) => state.problem);
  usePageShortcuts(PAGES);
  useEffect(() => {
    if (page) {
      settlePageId(page.id);
      prefetchPages(page, PAGES);
    }
    document.title = `${page?.title ?? 'No such page'} · Tokenbench`;
  }, [page]);
  return (
    <div className="shell">
      <Navigation pages={PAGES} current={page} />
      <main className="page" aria-label={page?.title ?? 'No such page'}>
        <Alert message={problem} className="connection-problem" />
        {/* Nothing while a page's code loads: the shell's grid holds the page's place, so nothing moves. */}
        <Suspense fallback={null}>{page ? <page.Page /> : <NoSuchPage id={requested} pages={PAGES} />}</Suspense>
      </main>
      <StatusBar />
      <WelcomeDialog />
    </div>
  );
}
