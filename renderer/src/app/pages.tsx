import { lazy, useState, type ComponentType } from 'react';
import { WORKBENCH_PAGES, type PageId } from '../../../shared/workbench/pages';
import { ComposerPage } from '../pages/composer/ComposerPage';
// Every page's styles load with the shell, in the order the pages' own imports met them, and before the shell's (App
// imports theme.css after this): theme.css wins ties of specificity with them, and a page's code fetched later must
// neither reorder the cascade nor paint before its styles.
import '../components/components.css';
import '../components/split-pane.css';
import '../components/code-editor.css';
import '../components/tabs.css';
import '../components/body-viewer.css';
import '../components/pipeline-trace.css';
import '../pages/composer/composer.css';
import '../pages/history/history.css';
import '../pages/tokens/tokens.css';
import '../pages/settings/settings.css';
import '../pages/transactions/transactions.css';
import '../pages/proxies/proxies.css';
import '../pages/webhooks/webhooks.css';

export interface PageDefinition {
  /** Its address: `#/<id>`; the engine's history names it by this id too. */
  id: PageId;
  title: string;
  /** Ctrl (⌘ on a Mac) and this digit open it: Composer 1, Tokens 2, Transactions 3, History 4, Settings 5, Proxies 6, Reactors 7, Webhooks 8. */
  shortcut: string;
  /** Suspends until its code is loaded, unless it is already: render it inside a Suspense boundary. */
  Page: ComponentType;
  /** Fetches the page's code (its chunk and what only it uses), once; it settles when the page can render. */
  load(): Promise<unknown>;
}

/** A page whose code is fetched when it is first shown or prefetched, so a start-up parses only the page it opens. */
function onDemand(load: () => Promise<ComponentType>): Pick<PageDefinition, 'Page' | 'load'> {
  let code: ComponentType | undefined;
  const fetchCode = () => load().then((component) => (code = component));
  const Lazy = lazy(async () => ({ default: await fetchCode() }));
  // Code already here renders at once: React.lazy would suspend for a tick, and React holds back a boundary's content
  // for 300 ms after showing its fallback. Chosen once per mount, so a page never remounts when its code arrives.
  function Page() {
    const [Shown] = useState<ComponentType>(() => code ?? Lazy);
    return <Shown />;
  }
  return { Page, load: fetchCode };
}

/** The workbench's pages, in navigation order; the first is where the workbench opens. */
export const PAGES: readonly PageDefinition[] = (
  [
    // Where the workbench opens: in the shell's own script, so opening it waits for no second fetch.
    { id: 'composer', shortcut: '1', Page: ComposerPage, load: () => Promise.resolve() },
    { id: 'tokens', shortcut: '2', ...onDemand(() => import('../pages/tokens/TokensPage').then((module) => module.TokensPage)) },
    { id: 'transactions', shortcut: '3', ...onDemand(() => import('../pages/transactions/TransactionsPage').then((module) => module.TransactionsPage)) },
    { id: 'history', shortcut: '4', ...onDemand(() => import('../pages/history/HistoryPage').then((module) => module.HistoryPage)) },
    { id: 'settings', shortcut: '5', ...onDemand(() => import('../pages/settings/SettingsPage').then((module) => module.SettingsPage)) },
    { id: 'proxies', shortcut: '6', ...onDemand(() => import('../pages/proxies/ProxiesPage').then((module) => module.ProxiesPage)) },
    { id: 'reactors', shortcut: '7', ...onDemand(() => import('../pages/reactors/ReactorsPage').then((module) => module.ReactorsPage)) },
    { id: 'webhooks', shortcut: '8', ...onDemand(() => import('../pages/webhooks/WebhooksPage').then((module) => module.WebhooksPage)) },
  ] as const
).map((page) => ({ ...page, title: WORKBENCH_PAGES[page.id] }));

/** The page an address names: the first for none, undefined for one this workbench does not have. */
export function pageNamed(id: string): PageDefinition | undefined {
  return id === '' ? PAGES[0] : PAGES.find((page) => page.id === id);
}
