import type { ComponentType } from 'react';
import { ComposerPage } from '../pages/composer/ComposerPage';
import { HistoryPage } from '../pages/history/HistoryPage';
import { TokensPage } from '../pages/tokens/TokensPage';
import { SettingsPage } from '../pages/settings/SettingsPage';
import { TransactionsPage } from '../pages/transactions/TransactionsPage';

export interface PageDefinition {
  /** Its address: `#/<id>`. */
  id: string;
  title: string;
  /** Ctrl (⌘ on a Mac) and this digit open it: Composer 1, Tokens 2, Transactions 3, History 4, Settings 5. */
  shortcut: string;
  Page: ComponentType;
}

/** The workbench's pages, in navigation order; the first is where the workbench opens. */
export const PAGES: readonly PageDefinition[] = [
  { id: 'composer', title: 'Composer', shortcut: '1', Page: ComposerPage },
  { id: 'tokens', title: 'Tokens', shortcut: '2', Page: TokensPage },
  { id: 'transactions', title: 'Transactions', shortcut: '3', Page: TransactionsPage },
  { id: 'history', title: 'History', shortcut: '4', Page: HistoryPage },
  { id: 'settings', title: 'Settings', shortcut: '5', Page: SettingsPage },
];
