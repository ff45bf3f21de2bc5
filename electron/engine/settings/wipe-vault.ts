import { type ApplicationStore, deleteAllApplications } from '../access/application-store';
import { deleteAllClientKeys } from '../encryption-keys/client-key-store';
import { bootstrapping, type BootstrapKeys } from '../access/first-start';
import { deleteAllProxies, type ProxyStore } from '../proxies/proxy-store';
import { deleteAllReactors, type ReactorStore } from '../reactors/reactor-store';
import { forgetAllAnswers } from '../server/idempotency';
import type { Sealer } from '../storage/crypto';
import { tx, type Unit } from '../storage/unit';
import { nowIso } from '../clock';
import type { TransactionManager } from '../transactions/transaction-manager';
import { deleteAllTransactions, type EndedTransaction } from '../transactions/transaction-store';
import { deleteAllIntents } from '../token-intents/intent-store';
import { deleteAllTokens, type SqliteTokenStore } from '../vault/token-store';
import { deleteAllWebhooks, type WebhookStore } from '../webhooks/webhook-store';

/** The stores a wipe empties that keep something in memory, told once their rows are gone. */
export interface VaultParts {
  tokens: SqliteTokenStore;
  transactions: TransactionManager;
  applications: ApplicationStore;
  proxies: ProxyStore;
  reactors: ReactorStore;
  webhooks: WebhookStore;
}

export interface Wiped {
  tokens: number;
  transactions: number;
  applications: number;
  /** The new first start's keys: the vault is as new, with its two first applications; null when `refill` made some. */
  keys: BootstrapKeys | null;
}

/**
 * Empties the vault as if it were new: its tokens, transactions (open ones rolled back first), applications with their
 * keys, pre-configured proxies, reactors, token intents, client encryption keys, webhooks with their deliveries, and
 * the answers kept for idempotent replays (one unit, wipeUnit); then makes the first two applications again. One SQLite
 * transaction: it happens whole or not at all. The master key, the webhooks' signing key, the tenant, the saved
 * limits, the secrets that saved requests refer to and the history stay. `refill` runs in the same transaction before
 * the first applications are made (a deleted tenant's seed applied again).
 */
export function wipeVault(parts: VaultParts, refill?: () => void): Wiped {
  try {
    return wipeTogether(parts, refill);
  } catch (error) {
    // Rolled back: the applications are as they were, though their memory was emptied for the refill's seed.
    void parts.applications.load();
    throw error;
  }
}

function wipeTogether(parts: VaultParts, refill?: () => void): Wiped {
  return parts.tokens.together((): Wiped => {
    const wiped = parts.tokens.units.run(() => wipeUnit(parts.transactions.store.sealer));
    parts.transactions.wiped(wiped.ended);
    parts.tokens.forgetAll(wiped.tokenIds);
    parts.proxies.forgetAll();
    parts.reactors.forgetAll();
    parts.webhooks.forgetAll();
    parts.applications.forgetAll();
    refill?.();
    const first = parts.tokens.units.run(() => bootstrapping(parts.applications));
    if (first) parts.applications.created(first.made);
    return { tokens: wiped.tokenIds.length, transactions: wiped.transactions, applications: wiped.applications, keys: first?.keys ?? null };
  });
}

/** The wipe unit: every store's rows gone in one transaction; what they held in memory its caller forgets. */
function* wipeUnit(sealer: Sealer): Unit<{ transactions: number; ended: EndedTransaction[]; tokenIds: string[]; applications: number }> {
  const { count: transactions, ended } = yield* deleteAllTransactions(sealer, nowIso());
  const tokenIds = yield* deleteAllTokens();
  for (const statement of [deleteAllProxies, deleteAllReactors, deleteAllIntents, deleteAllClientKeys, deleteAllWebhooks]) yield* tx.run(statement);
  const applications = (yield* tx.run(deleteAllApplications)).changes;
  yield* tx.run(forgetAllAnswers);
  return { transactions, ended, tokenIds, applications };
}
