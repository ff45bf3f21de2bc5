import type { PageDefinition } from './pages';

let prefetching = false;

/**
 * Once the page shown first has its code and the browser is idle, fetches every other page's, so a later Ctrl+digit
 * waits for no fetch. Once per load; a page that fails to load here says so when it is opened.
 */
export function prefetchPages(first: PageDefinition, pages: readonly PageDefinition[]): void {
  if (prefetching) return;
  prefetching = true;
  const whenIdle = window.requestIdleCallback ?? setTimeout;
  const fetchAll = () => pages.forEach((page) => void page.load().catch(() => undefined));
  first.load().then(() => whenIdle(fetchAll), () => undefined);
}
