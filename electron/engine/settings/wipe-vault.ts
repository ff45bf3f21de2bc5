import { type ApplicationStore, deleteAllApplications } from '../access/application-store';
import { deleteAllClientKeys } from '../encryption-keys/client-key-store';
import { bootstrapping, type BootstrapKeys } from '../access/first-start';
import { deleteAllProxies, type ProxyStore } from '../proxies/proxy-store';
import { deleteAllReactors, type ReactorStore } from '../reactors/reactor-store';
import { forgetAllAnswers } from '../server/idempotency';
import type { Sealer } from '../storage/crypto';
import { EVERYTHING_CHANGED } from '../storage/change-feed';
import { afterRun, type Answer, type AnyUnitRunner, tx, type Unit } from '../storage/unit';
import { nowIso } from '../clock';
import type { TransactionManager } from '../transactions/transaction-manager';
import { deleteAllTransactions, type TransactionSnapshot, type TransactionUnits } from '../transactions/transaction-store';
import { deleteAllIntents } from '../token-intents/intent-store';
import { deleteAllTokens, type UnitTokenStore } from '../vault/token-store';
import { deleteAllWebhooks, type WebhookStore } from '../webhooks/webhook-store';

/** The stores a wipe empties that keep something in memory, told once their rows are gone; `R` runs the wipe. */
export interface VaultParts<R extends AnyUnitRunner> {
  tokens: UnitTokenStore<R>;
  transactions: TransactionManager<TransactionUnits>;
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
 * the answers kept for idempotent replays (one unit, wipeUnit); then makes the first two applications again. One unit:
 * it happens whole or not at all. The master key, the webhooks' signing key, the tenant, the saved
 * limits, the secrets that saved requests refer to and the history stay. `refill` runs in the same transaction before
 * the first applications are made (a deleted tenant's reset and seed applied again). Answers at once over SQLite.
 */
export function wipeVault<R extends AnyUnitRunner>(parts: VaultParts<R>, refill?: () => Unit<void>): Answer<R, Wiped> {
  // Rolled back: the applications are as they were, though their memory was emptied for the refill's seed.
  const reload = (error: unknown) => {
    void parts.applications.load();
    throw error;
  };
  try {
    const wiped = wipeTogether(parts, refill);
    return (wiped instanceof Promise ? wiped.catch(reload) : wiped) as Answer<R, Wiped>;
  } catch (error) {
    return reload(error);
  }
}

/**
 * One unit: the wipe, the refill and the first applications. The stores forget what they held before the refill runs
 * (its seed is judged against the empty vault), inside the unit: the refill joins its transaction.
 */
function wipeTogether<R extends AnyUnitRunner>(parts: VaultParts<R>, refill?: () => Unit<void>): Wiped | Promise<Wiped> {
  const { sealer } = parts.transactions.store;
  const done = parts.tokens.units.run(function* () {
    const wiped = yield* wipeUnit(sealer);
    parts.transactions.wiped(wiped.ended);
    parts.tokens.forgetAll();
    parts.proxies.forgetAll();
    parts.reactors.forgetAll();
    parts.webhooks.forgetAll();
    parts.applications.forgetAll();
    if (refill) yield* refill();
    return { wiped, first: yield* bootstrapping(parts.applications) };
  });
  return afterRun(done, ({ wiped, first }) => {
    if (first) parts.applications.created(first.made);
    return { tokens: wiped.tokenIds.length, transactions: wiped.transactions, applications: wiped.applications, keys: first?.keys ?? null };
  });
}

/**
 * The wipe unit: every store's rows gone in one transaction; what they held in memory its caller forgets, and every
 * other replica reloads.
 */
export function* wipeUnit(sealer: Sealer): Unit<{ transactions: number; ended: TransactionSnapshot[]; tokenIds: string[]; applications: number }> {
  const { count: transactions, ended } = yield* deleteAllTransactions(sealer, nowIso());
  const tokenIds = yield* deleteAllTokens();
  for (const statement of [deleteAllProxies, deleteAllReactors, deleteAllIntents, deleteAllClientKeys, deleteAllWebhooks]) yield* tx.run(statement);
  const applications = (yield* tx.run(deleteAllApplications)).changes;
  yield* tx.run(forgetAllAnswers);
  // Every other replica's stores read everything again (applications with their keys and sessions, proxies, reactors,
  // webhooks); the tokens' own notice makes their caches forget every token.
  yield* tx.notify(EVERYTHING_CHANGED, 'wipe');
  return { transactions, ended, tokenIds, applications };
}
