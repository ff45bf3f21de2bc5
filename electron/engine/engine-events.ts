import { EventEmitter } from 'node:events';
import type { SentHistoryEntry, TransactionView } from '../../shared/workbench/contract';
import type { TokenChange } from '../../shared/workbench/token-contract';
import type { RequestLog } from './history/request-log';
import type { TransactionManager } from './transactions/transaction-manager';
import type { TransactionPanel } from './transactions/transaction-panel';
import { tokenIdOf } from './transactions/transaction-store';
import type { TokenStore, TokenWrite } from './vault/token-store';

/** The engine's one event road: what the workbench hears of the changes the engine makes. */
export interface EngineEventMap {
  /** A request the engine handled, as its history keeps it (token data masked). */
  request: [SentHistoryEntry];
  /** A transaction was created, enlisted a write, or ended: its state now. */
  transaction: [TransactionView];
  /** A token was created, changed or deleted in the vault (a transaction's, once it commits): its id, no data. */
  token: [TokenChange];
}

const CHANGES: Record<TokenWrite['op'], TokenChange['change']> = { create: 'created', update: 'changed', delete: 'deleted' };

export type EngineEvents = EventEmitter<EngineEventMap>;

/**
 * Wires the history, the transactions and the vault's writes into one typed emitter. The history is watched only
 * while someone listens: it shapes an entry for display (decoding its kept body) only for a listener, so with none
 * every request skips that.
 */
export function engineEvents(history: RequestLog, transactions: TransactionManager, panel: TransactionPanel, tokens: TokenStore): EngineEvents {
  const events: EngineEvents = new EventEmitter();
  const forwardEntry = (entry: SentHistoryEntry) => events.emit('request', entry);
  // The typed map leaves out EventEmitter's own events; newListener fires before the listener is added.
  const subscriptions = events as EventEmitter;
  subscriptions.on('newListener', (name: string) => {
    if (name === 'request' && events.listenerCount('request') === 0) history.on('entry', forwardEntry);
  });
  subscriptions.on('removeListener', (name: string) => {
    if (name === 'request' && events.listenerCount('request') === 0) history.off('entry', forwardEntry);
  });
  transactions.on('change', ({ id }) => {
    if (events.listenerCount('transaction') > 0) events.emit('transaction', panel.get(id)!);
  });
  tokens.onApplied((writes) => {
    if (events.listenerCount('token') === 0) return;
    for (const write of writes) events.emit('token', { id: tokenIdOf(write), change: CHANGES[write.op] });
  });
  return events;
}
