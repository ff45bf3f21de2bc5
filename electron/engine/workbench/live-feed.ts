import type { CollectionsView } from '../../../shared/workbench/collection-contract';
import type { SentHistoryEntry } from '../../../shared/workbench/history-contract';
import type { EngineStatus, SentLiveEvent } from '../../../shared/workbench/live-contract';
import type { TransactionCounts, TransactionView } from '../../../shared/workbench/transaction-contract';
import type { TokenChange } from '../../../shared/workbench/token-contract';
import type { EngineEvents } from '../engine-events';
import { afterRun } from '../storage/unit';

export type LiveUpdate = Extract<SentLiveEvent, { type: 'update' }>;

/** Often enough to feel live, rarely enough that a load test with the GUI open costs the engine little. */
const FLUSH_EVERY_MS = 100;
/** The IPC and the GUI's list stay bounded: under load a batch carries only the newest, and counts the rest. */
const MAX_BATCH = 200;
/** Past this many changed tokens in one batch the list reads itself again rather than each token. */
const MAX_TOKEN_CHANGES = 200;

/**
 * Batches the engine's events for workbench subscribers (SSE streams, the Electron window) and sends each batch with
 * one status snapshot, so token counts stay current without polling (transaction counts too, when any changed), and
 * the ids of the tokens that changed.
 */
export class LiveFeed {
  private readonly listeners = new Set<(update: LiveUpdate) => void>();
  private entries: SentHistoryEntry[] = [];
  /** How many entries of this batch were trimmed: the reader then reads its list again rather than show a hole. */
  private entriesLeftOut = 0;
  /** By id: a batch carries each changed transaction once, in its latest state. */
  private readonly transactions = new Map<string, TransactionView>();
  /** The saved requests as last changed, until the next batch carries them. */
  private collections: CollectionsView | undefined;
  /** By id: a token created then deleted within a batch is only deleted. */
  private readonly tokens = new Map<string, TokenChange['change']>();
  private moreTokens = false;
  private historyReset = false;
  private transactionsReset = false;
  private tokenIntents = false;
  private readonly webhooks = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly events: EngineEvents,
    private readonly status: () => EngineStatus,
    /** Read once per batch that changed transactions, so the page's counts follow without re-listing. */
    private readonly transactionCounts: () => TransactionCounts | Promise<TransactionCounts>,
    /** The saved requests as the page sees them (with the workbench's warnings), from the folder's listing. */
    private readonly shownCollections: (collections: CollectionsView) => CollectionsView,
  ) {}

  /** The engine's events are heard only while someone listens: with no GUI open, requests pay nothing. */
  subscribe(listener: (update: LiveUpdate) => void): () => void {
    if (this.listeners.size === 0) {
      this.events.on('request', this.collectEntry);
      this.events.on('transaction', this.collectTransaction);
      this.events.on('transactionsReset', this.collectTransactionsReset);
      this.events.on('collections', this.collectCollections);
      this.events.on('token', this.collectToken);
      this.events.on('historyReset', this.collectHistoryReset);
      this.events.on('tokenIntent', this.collectIntent);
      this.events.on('webhookDelivery', this.collectDelivery);
    }
    this.listeners.add(listener);
    return () => {
      if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
      this.events.off('request', this.collectEntry);
      this.events.off('transaction', this.collectTransaction);
      this.events.off('transactionsReset', this.collectTransactionsReset);
      this.events.off('collections', this.collectCollections);
      this.events.off('token', this.collectToken);
      this.events.off('historyReset', this.collectHistoryReset);
      this.events.off('tokenIntent', this.collectIntent);
      this.events.off('webhookDelivery', this.collectDelivery);
      this.reset();
    };
  }

  private readonly collectEntry = (entry: SentHistoryEntry) => {
    this.entries.push(entry);
    // Trimmed in bulk, not per entry: amortised O(1) per request during a burst.
    if (this.entries.length >= 2 * MAX_BATCH) this.trim();
    this.schedule();
  };

  private readonly collectTransaction = (transaction: TransactionView) => {
    this.transactions.set(transaction.id, transaction);
    this.schedule();
  };

  private readonly collectTransactionsReset = () => {
    // The transactions collected so far may be among those gone: the reader lists them again instead.
    this.transactions.clear();
    this.transactionsReset = true;
    this.schedule();
  };

  private readonly collectCollections = (collections: CollectionsView) => {
    this.collections = this.shownCollections(collections);
    this.schedule();
  };

  private readonly collectToken = ({ id, change }: TokenChange) => {
    if (!this.moreTokens) this.tokens.set(id, change);
    if (this.tokens.size > MAX_TOKEN_CHANGES) {
      this.moreTokens = true;
      this.tokens.clear();
    }
    this.schedule();
  };

  private readonly collectIntent = () => {
    this.tokenIntents = true;
    this.schedule();
  };

  private readonly collectDelivery = (webhookId: string) => {
    this.webhooks.add(webhookId);
    this.schedule();
  };

  private readonly collectHistoryReset = () => {
    // The entries collected so far may be among those gone: the reader reads the history again instead.
    this.entries = [];
    this.entriesLeftOut = 0;
    this.historyReset = true;
    this.schedule();
  };

  private schedule() {
    this.timer ??= setTimeout(this.flush, FLUSH_EVERY_MS).unref();
  }

  private trim() {
    const over = this.entries.length - MAX_BATCH;
    if (over <= 0) return;
    this.entriesLeftOut += over;
    this.entries = this.entries.slice(over);
  }

  private readonly flush = () => {
    this.trim();
    const counts = this.transactions.size > 0 ? this.transactionCounts() : undefined;
    const update: LiveUpdate = {
      type: 'update',
      status: this.status(),
      entries: this.entries.reverse(),
      entriesLeftOut: this.entriesLeftOut,
      transactions: [...this.transactions.values()],
      ...(this.collections && { collections: this.collections }),
      tokens: { changes: [...this.tokens].map(([id, change]) => ({ id, change })), more: this.moreTokens },
      historyReset: this.historyReset,
      transactionsReset: this.transactionsReset,
      tokenIntents: this.tokenIntents,
      webhooks: [...this.webhooks],
    };
    this.reset();
    // The counts are awaited only where the store's reads are (PostgreSQL); a failed read sends the batch without them.
    const sent = afterRun(counts, (transactionCounts) => this.send(transactionCounts ? { ...update, transactionCounts } : update));
    if (sent instanceof Promise) sent.catch(() => this.send(update));
  };

  private send(update: LiveUpdate): void {
    for (const listener of this.listeners) listener(update);
  }

  private reset() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.entries = [];
    this.entriesLeftOut = 0;
    this.transactions.clear();
    this.collections = undefined;
    this.tokens.clear();
    this.moreTokens = false;
    this.historyReset = false;
    this.transactionsReset = false;
    this.tokenIntents = false;
    this.webhooks.clear();
  }
}
