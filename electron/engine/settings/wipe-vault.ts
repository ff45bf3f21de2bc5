import type { ApplicationStore } from '../access/application-store';
import type { ClientKeyStore } from '../encryption-keys/client-key-store';
import { bootstrap, type BootstrapKeys } from '../access/first-start';
import type { ProxyStore } from '../proxies/proxy-store';
import type { ReactorStore } from '../reactors/reactor-store';
import type { IdempotencyStore } from '../server/idempotency';
import type { TransactionManager } from '../transactions/transaction-manager';
import type { IntentStore } from '../token-intents/intent-store';
import type { TokenStore } from '../vault/token-store';
import type { WebhookStore } from '../webhooks/webhook-store';

export interface VaultParts {
  tokens: TokenStore;
  transactions: TransactionManager;
  applications: ApplicationStore;
  idempotency: IdempotencyStore;
  proxies: ProxyStore;
  reactors: ReactorStore;
  intents: IntentStore;
  clientKeys: ClientKeyStore;
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
 * keys, pre-configured proxies, reactors, token intents, client encryption keys, webhooks with their deliveries, and the answers kept for idempotent replays; then makes the first two applications again. One SQLite
 * transaction: it happens whole or not at all. The master key, the webhooks' signing key, the tenant, the saved limits, the secrets that saved
 * requests refer to and the history stay. `refill` runs in the same transaction before the first applications are
 * made (a deleted tenant's seed applied again).
 */
export function wipeVault(parts: VaultParts, refill?: () => void): Wiped {
  return parts.tokens.db.transaction((): Wiped => {
    const transactions = parts.transactions.wipe();
    const tokens = parts.tokens.deleteAll();
    parts.proxies.deleteAll();
    parts.reactors.deleteAll();
    parts.intents.deleteAll();
    parts.clientKeys.deleteAll();
    parts.webhooks.deleteAll();
    const applications = parts.applications.deleteAll();
    parts.idempotency.clear();
    refill?.();
    return { tokens, transactions, applications, keys: bootstrap(parts.applications) };
  })();
}
