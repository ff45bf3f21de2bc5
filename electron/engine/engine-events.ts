import { EventEmitter } from 'node:events';
import type { CollectionsView } from '../../shared/workbench/collection-contract';
import type { SentHistoryEntry } from '../../shared/workbench/history-contract';
import type { TransactionView } from '../../shared/workbench/transaction-contract';
import type { CollectionStore } from './collections/collection-store';
import type { TokenChange } from '../../shared/workbench/token-contract';
import { HISTORY_CHANGES } from './history/history-backend';
import type { RequestLog } from './history/request-log';
import type { TransactionManager } from './transactions/transaction-manager';
import type { TransactionPanel } from './transactions/transaction-panel';
import type { IntentChange } from './token-intents/token-intents';
import { type ChangeFeed, EVERYTHING_CHANGED } from './storage/change-feed';
import type { AnyUnitRunner } from './storage/unit';
import { tokenIdOf, TRANSACTION_CHANGES, type TransactionUnits } from './transactions/transaction-store';
import { TransactionViews } from './transactions/transaction-views';
import { TOKEN_CHANGES, type TokenStore, type TokenWrite } from './vault/token-store';

/** The engine's one event road: what the workbench hears of the changes the engine makes. */
export interface EngineEventMap {
  /** A request the engine (or, over PostgreSQL, another replica) handled, as its history keeps it (token data masked). */
  request: [SentHistoryEntry];
  /**
   * A transaction was created, enlisted a write, or ended, here or on another replica: its state as the change left it
   * (or, for another replica's, as read since), each transaction's views heard in the order of its life.
   */
  transaction: [TransactionView];
  /**
   * The kept transactions changed in a way no view names: the vault was wiped (here or on another replica), or another
   * replica's notices were missed (a resync). Whoever shows them reads them again.
   */
  transactionsReset: [];
  /** The saved requests' folder changed, in the app or outside it: the collections as they are now. */
  collections: [CollectionsView];
  /** A token was created, changed or deleted in the vault (a transaction's, once it commits): its id, no data. */
  token: [TokenChange];
  /** The history was cleared or trimmed to a new retention: what a reader holds of it may be gone. */
  historyReset: [];
  /** A token intent was created, converted or deleted: its id, no data. */
  tokenIntent: [IntentChange];
  /** A webhook's delivery was queued or attempted: the webhook's id. */
  webhookDelivery: [string];
}

const CHANGES: Record<TokenWrite['op'], TokenChange['change']> = { create: 'created', update: 'changed', delete: 'deleted' };

export type EngineEvents = EventEmitter<EngineEventMap>;

/**
 * Wires the history, the transactions, the vault's writes and the saved requests into one typed emitter. The history and the
 * collections' folder are watched only while someone listens: the history shapes an entry for display (decoding its
 * kept body) only for a listener, so with none every request skips that.
 */
export function engineEvents(
  history: RequestLog,
  transactions: TransactionManager<TransactionUnits>,
  panel: TransactionPanel,
  tokens: Pick<TokenStore<AnyUnitRunner>, 'onApplied'>,
  collections: CollectionStore,
  /** The storage's change feed: over PostgreSQL it carries the other replicas' token and transaction changes too. */
  changes: ChangeFeed,
): EngineEvents {
  const events: EngineEvents = new EventEmitter();
  const forwardEntry = (entry: SentHistoryEntry) => events.emit('request', entry);
  const forwardCollections = (view: CollectionsView) => events.emit('collections', view);
  const views = new TransactionViews(panel, (view) => events.emit('transaction', view));
  // The typed map leaves out EventEmitter's own events; newListener fires before the listener is added.
  const subscriptions = events as EventEmitter;
  subscriptions.on('newListener', (name: string) => {
    if (name === 'request' && events.listenerCount('request') === 0) history.on('entry', forwardEntry);
    if (name === 'transaction' && events.listenerCount('transaction') === 0) transactions.showViews(true);
    if (name === 'collections' && events.listenerCount('collections') === 0) {
      collections.on('change', forwardCollections);
      collections.watch();
    }
  });
  subscriptions.on('removeListener', (name: string) => {
    if (name === 'request' && events.listenerCount('request') === 0) history.off('entry', forwardEntry);
    if (name === 'transaction' && events.listenerCount('transaction') === 0) {
      transactions.showViews(false);
      views.reset();
    }
    if (name === 'collections' && events.listenerCount('collections') === 0) {
      collections.off('change', forwardCollections);
      collections.close();
    }
  });
  history.on('reset', () => events.emit('historyReset'));
  // Another replica's batch of entries, named by their ids: read only while the history is listened to (see above).
  changes.listen(HISTORY_CHANGES, (ids, origin) => {
    if (origin === 'elsewhere') history.heardElsewhere(ids.split(','));
  });
  transactions.on('change', (change) => {
    if (events.listenerCount('transaction') > 0) views.changed(change);
  });
  changes.listen(TRANSACTION_CHANGES, (id, origin) => {
    if (origin === 'elsewhere' && events.listenerCount('transaction') > 0) void views.read(id);
  });
  // A wipe deletes the transactions without a notice each; another replica's wipe reaches this one as a resync, as do
  // the notices missed while the notify connection was down.
  const transactionsReset = () => events.emit('transactionsReset');
  changes.listen(EVERYTHING_CHANGED, (_, origin) => {
    if (origin === 'here') transactionsReset();
  });
  changes.onResync(transactionsReset);
  tokens.onApplied((writes) => {
    if (events.listenerCount('token') === 0) return;
    for (const write of writes) events.emit('token', { id: tokenIdOf(write), change: CHANGES[write.op] });
  });
  // Another replica's notice names the token, not what befell it: as 'changed' the page reads it again, which shows a
  // created token and drops a deleted one. This process's own writes were heard above, with their kind.
  changes.listen(TOKEN_CHANGES.TOKENS, (id, origin) => {
    if (origin === 'elsewhere' && events.listenerCount('token') > 0) events.emit('token', { id, change: 'changed' });
  });
  return events;
}
