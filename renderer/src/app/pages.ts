import type { ComponentType } from 'react';
import { ComposerPage } from '../pages/composer/ComposerPage';
import { HistoryPage } from '../pages/history/HistoryPage';
import { TokensPage } from '../pages/tokens/TokensPage';
import { SettingsPage } from '../pages/settings/SettingsPage';
import { TransactionsPage } from '../pages/transactions/TransactionsPage';
import { WORKBENCH_PAGES, type PageId } from '../../../shared/workbench/pages';

export interface PageDefinition {
  /** Its address: `#/<id>`; the engine's history names it by this id too. */
  id: PageId;
  title: string;
  /** Ctrl (⌘ on a Mac) and this digit open it: Composer 1, Tokens 2, Transactions 3, History 4, Settings 5. */
  shortcut: string;
  Page: ComponentType;
}

/** The workbench's pages, in navigation order; the first is where the workbench opens. */
export const PAGES: readonly PageDefinition[] = (
  [
    { id: 'composer', shortcut: '1', Page: ComposerPage },
    { id: 'tokens', shortcut: '2', Page: TokensPage },
    { id: 'transactions', shortcut: '3', Page: TransactionsPage },
    { id: 'history', shortcut: '4', Page: HistoryPage },
    { id: 'settings', shortcut: '5', Page: SettingsPage },
  ] as const
).map((page) => ({ ...page, title: WORKBENCH_PAGES[page.id] }));
