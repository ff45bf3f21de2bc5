/**
 * The workbench's pages by id, with the title each is shown under: the renderer's navigation and the engine's audit
 * trail both read this one list, so a page the history names is one the workbench has.
 */
export const WORKBENCH_PAGES = {
  composer: 'Composer',
  tokens: 'Tokens',
  transactions: 'Transactions',
  history: 'History',
  settings: 'Settings',
  proxies: 'Proxies',
  reactors: 'Reactors',
  webhooks: 'Webhooks',
} as const;

export type PageId = keyof typeof WORKBENCH_PAGES;
export const PAGE_IDS = Object.keys(WORKBENCH_PAGES) as PageId[];

export const isPageId = (id: string): id is PageId => Object.hasOwn(WORKBENCH_PAGES, id);

/**
 * Who the history names for a request the workbench made: the page it was made on ("Tokens page"), or the workbench
 * itself when the call named none. A page id this version no longer has (an older entry) is shown as it was stored.
 */
export function workbenchLabel(page: string | null): string {
  if (page === null) return 'Workbench';
  return `${isPageId(page) ? WORKBENCH_PAGES[page] : page} page`;
}
